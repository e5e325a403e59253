/** Every GraphQL document the app sends, typed against schema/schema.graphql by gql.tada. */
import { graphql } from './graphql.ts';

export const MeQuery = graphql(`
  query Me {
    me { id email emailVerified plan overageAvailable signedUrlsAvailable }
  }
`);

export const SignUp = graphql(`
  mutation SignUp($email: String!, $password: String!) {
    signUp(email: $email, password: $password) { id email emailVerified plan overageAvailable signedUrlsAvailable }
  }
`);

export const SignIn = graphql(`
  mutation SignIn($email: String!, $password: String!) {
    signIn(email: $email, password: $password) { id email emailVerified plan overageAvailable signedUrlsAvailable }
  }
`);

export const SignOut = graphql(`
  mutation SignOut { signOut }
`);

export const VerifyEmail = graphql(`
  mutation VerifyEmail($token: String!) {
    verifyEmail(token: $token) { id email emailVerified plan overageAvailable signedUrlsAvailable }
  }
`);

export const ResendVerification = graphql(`
  mutation ResendVerification { resendVerificationEmail }
`);

export const AccountQuery = graphql(`
  query Account($limit: Int!, $offset: Int!) {
    credits { plan creditsIncluded creditsUsed creditsRemaining resetDate overageEnabled overageRatePer1000
      overageCredits }
    apiKeys { id prefix name createdAt lastUsedAt }
    history(limit: $limit, offset: $offset) { total limit offset hasMore history { time conv jobId viaApi } }
  }
`);

export const HistoryQuery = graphql(`
  query History($limit: Int!, $offset: Int!) {
    history(limit: $limit, offset: $offset) { total limit offset hasMore history { time conv jobId viaApi } }
  }
`);

export const CreateApiKey = graphql(`
  mutation CreateApiKey($name: String) {
    createApiKey(name: $name) { key apiKey { id prefix name createdAt lastUsedAt } }
  }
`);

export const RevokeApiKey = graphql(`
  mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) }
`);

export const SetOverage = graphql(`
  mutation SetOverage($enabled: Boolean!) {
    setOverage(enabled: $enabled) { plan creditsIncluded creditsUsed creditsRemaining resetDate overageEnabled
      overageRatePer1000 overageCredits }
  }
`);

export const CreateSignedUrl = graphql(`
  mutation CreateSignedUrl($jobId: ID!, $expirySeconds: Int) {
    createSignedUrl(jobId: $jobId, expirySeconds: $expirySeconds) { url expiresIn expiresAt reusable }
  }
`);

export const FormatsQuery = graphql(`
  query Formats {
    formats {
      conversions { from to }
      operations { kind op pluginId title inputs outputs options optionsField plan available }
    }
    credits { plan creditsRemaining creditsIncluded }
  }
`);

const JobFields = graphql(`
  fragment JobFields on Job { jobId status progress downloadUrl expiresIn error creditCost creditsRemaining
    toolReport { op detected } }
`);

export const Convert = graphql(
  `
  mutation Convert($file: Upload!, $to: String!, $op: String, $options: ConvertOptions) {
    convert(file: $file, to: $to, op: $op, options: $options) { ...JobFields }
  }
`,
  [JobFields],
);

/** The convert page's URL source: the server fetches the file (https). */
export const ConvertUrl = graphql(
  `
  mutation ConvertUrl($url: String!, $to: String!, $op: String, $options: ConvertOptions) {
    convert(url: $url, to: $to, op: $op, options: $options) { ...JobFields }
  }
`,
  [JobFields],
);

/** The convert page's "then…" chain: one job runs every step on the previous output. */
export const CreatePipeline = graphql(
  `
  mutation CreatePipeline($file: Upload, $pipeline: PipelineInput!) {
    createPipeline(file: $file, pipeline: $pipeline) { ...JobFields }
  }
`,
  [JobFields],
);

export const MergePdf = graphql(
  `
  mutation MergePdf($files: [Upload!]!) {
    mergePdf(files: $files) { ...JobFields }
  }
`,
  [JobFields],
);

export const BatchConvert = graphql(`
  mutation BatchConvert($files: [Upload!]!, $to: String!, $op: String, $options: ConvertOptions) {
    batchConvert(files: $files, to: $to, op: $op, options: $options) { batchId total errors { filename error } }
  }
`);

export const JobQuery = graphql(
  `
  query Job($id: ID!) { job(id: $id) { ...JobFields } }
`,
  [JobFields],
);

export const BatchQuery = graphql(`
  query Batch($id: ID!) { batch(id: $id) { total completed done downloadUrl } }
`);

export const JobUpdated = graphql(
  `
  subscription JobUpdated($id: ID!) {
    jobUpdated(id: $id) { ...JobFields }
  }
`,
  [JobFields],
);

const Accepted = graphql(`
  fragment Accepted on BatchAccepted { batchId total errors { filename error } }
`);

export const PdfToMarkdown = graphql(
  `
  mutation PdfToMarkdown($files: [Upload!]!, $keepRunning: Boolean, $pageBreaks: Boolean, $lang: String) {
    pdfToMarkdown(files: $files, keepRunning: $keepRunning, pageBreaks: $pageBreaks, lang: $lang) { ...Accepted }
  }
`,
  [Accepted],
);

export const FileSearch = graphql(
  `
  mutation FileSearch($files: [Upload!]!, $query: String!, $wholeWord: Boolean, $caseSensitive: Boolean) {
    fileSearch(files: $files, query: $query, wholeWord: $wholeWord, caseSensitive: $caseSensitive) { ...Accepted }
  }
`,
  [Accepted],
);

export const ParseCv = graphql(
  `
  mutation ParseCv($files: [Upload!]!) { parseCv(files: $files) { ...Accepted } }
`,
  [Accepted],
);

export const Transcribe = graphql(
  `
  mutation Transcribe($files: [Upload!]!, $lang: TranscribeOptionsLang) {
    transcribe(files: $files, lang: $lang) { ...Accepted }
  }
`,
  [Accepted],
);

export const ExtractionQuery = graphql(`
  query Extraction($tool: String!, $id: ID!) {
    extraction(tool: $tool, id: $id) { done total completed failed totalHits rows { filename status error data } }
  }
`);

/** Stop a waiting or running job: it ends failed "Cancelled" and its credits come back. */
export const CancelJob = graphql(`
  mutation CancelJob($id: ID!) {
    cancelJob(id: $id) { jobId status error }
  }
`);

/**
 * op=structure's model as typed nodes, or op=chunk's chunks, of a finished job. GraphQL has no
 * recursive selection and the server bounds depth at 10 (a fragment spread counts twice), so a
 * block's fields are written out where they are selected: top level, then one level inside slides,
 * sheets and list items.
 */
export const DocumentResult = graphql(`
  query DocumentResult($id: ID!) { job(id: $id) { jobId
    document { source { format } pages { number }
      body { __typename
      ... on DocumentNode { id page }
      ... on DocumentHeading { level text }
      ... on DocumentParagraph { text }
      ... on DocumentCode { text language }
      ... on DocumentFormula { text }
      ... on DocumentFootnote { label text }
      ... on DocumentFigure { caption alt }
      ... on DocumentTable { headerRows caption name rows { text rowSpan colSpan header } }
      ... on DocumentList { ordered start items { id page text } }
      ... on DocumentSection { kind number title }
        ... on DocumentList { items { children { __typename
      ... on DocumentNode { id page }
      ... on DocumentHeading { level text }
      ... on DocumentParagraph { text }
      ... on DocumentCode { text language }
      ... on DocumentFormula { text }
      ... on DocumentFootnote { label text }
      ... on DocumentFigure { caption alt }
      ... on DocumentTable { headerRows caption name rows { text rowSpan colSpan header } }
      ... on DocumentList { ordered start items { id page text } }
      ... on DocumentSection { kind number title } } } }
        ... on DocumentSection { children { __typename
      ... on DocumentNode { id page }
      ... on DocumentHeading { level text }
      ... on DocumentParagraph { text }
      ... on DocumentCode { text language }
      ... on DocumentFormula { text }
      ... on DocumentFootnote { label text }
      ... on DocumentFigure { caption alt }
      ... on DocumentTable { headerRows caption name rows { text rowSpan colSpan header } }
      ... on DocumentList { ordered start items { id page text } }
      ... on DocumentSection { kind number title } } notes { __typename
      ... on DocumentNode { id page }
      ... on DocumentHeading { level text }
      ... on DocumentParagraph { text }
      ... on DocumentCode { text language }
      ... on DocumentFormula { text }
      ... on DocumentFootnote { label text }
      ... on DocumentFigure { caption alt }
      ... on DocumentTable { headerRows caption name rows { text rowSpan colSpan header } }
      ... on DocumentList { ordered start items { id page text } }
      ... on DocumentSection { kind number title } } } }
      furniture { __typename ... on DocumentNode { id page } ... on DocumentPageHeader { text }
        ... on DocumentPageFooter { text } } }
    chunks { index content tokens headings pages { first last } nodes } } }
`);
