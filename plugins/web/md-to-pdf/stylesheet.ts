/** The built-in stylesheet Markdown is printed with: GitHub-like, print-friendly. */
export const MARKDOWN_CSS = `
@page { size: auto; }
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
  font-size: 11pt; line-height: 1.5; color: #1f2328; }
body { margin: 0; }
h1, h2, h3, h4, h5, h6 { margin: 1.2em 0 0.5em; line-height: 1.25; font-weight: 600; break-after: avoid; }
h1 { font-size: 2em; border-bottom: 1px solid #d1d9e0; padding-bottom: 0.3em; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: 0.3em; }
h3 { font-size: 1.25em; }
p, ul, ol, table, pre, blockquote { margin: 0 0 1em; }
a { color: #0969da; text-decoration: none; }
code, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.9em; }
code { background: #eff1f3; padding: 0.15em 0.35em; border-radius: 4px; }
pre { background: #f6f8fa; padding: 0.8em 1em; border-radius: 6px; white-space: pre-wrap; word-break: break-word;
  break-inside: avoid; }
pre code { background: none; padding: 0; }
blockquote { color: #59636e; border-left: 0.25em solid #d1d9e0; padding: 0 1em; }
table { border-collapse: collapse; break-inside: auto; }
th, td { border: 1px solid #d1d9e0; padding: 0.3em 0.8em; }
th { background: #f6f8fa; font-weight: 600; }
tr { break-inside: avoid; }
img { max-width: 100%; }
hr { border: 0; border-top: 1px solid #d1d9e0; margin: 1.5em 0; }
input[type=checkbox] { margin-right: 0.4em; }
`;
