/** Shared by the field finders: a found value with its confidence, and the job-title vocabulary. */

/** A value a heuristic found, with how sure it is (0 = not found, see README "Confidence"). */
export interface Finding<T> {
  value: T;
  confidence: number;
}

export const notFound = <T>(value: T): Finding<T> => ({ value, confidence: 0 });

/** Words that mark a line as a job title ("Senior Software Engineer"), never a name or a place. */
export const JOB_WORDS =
  /\b(engineer|developer|programmer|manager|designer|consultant|analyst|director|specialist|scientist|officer|lead|architect|intern|assistant|coordinator|administrator|accountant|teacher|nurse|technician|head|president|founder|co-founder|owner|associate|executive|representative|editor|writer|researcher|recruiter|advisor|adviser|supervisor|operator|cto|ceo|cfo|coo|vp|devops|sre|student|professor|lecturer|attorney|lawyer|marketer|strategist|trainee|apprentice)s?\b/i;
