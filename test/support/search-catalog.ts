// A catalog of realistic skills and the queries a person would type to find them, for the relevance
// test of search (docs/search.md). `expected` lists the skills that person expects in the top 3;
// `first` marks queries that name a skill, whose first hit must be that skill.

export interface CatalogSkill {
  name: string;
  description: string;
  body: string;
}

export interface CatalogQuery {
  q: string;
  expected: string[];
  first?: string;
  /** What the query exercises, for failure messages. */
  kind: 'name' | 'prefix' | 'typo' | 'plural' | 'phrase' | 'body' | 'description';
}

const skill = (name: string, description: string, ...body: string[]): CatalogSkill => ({
  name,
  description,
  body: `# ${name}\n\n${body.join('\n\n')}\n`,
});

export const CATALOG: CatalogSkill[] = [
  skill(
    'pdf',
    'Extract text and tables from PDF files, fill PDF forms, merge and split documents.',
    'Use pypdf to read pages and pdfplumber for tables. For scanned pages run OCR first.',
    'To fill a form, list its fields, then write the values and flatten the result.',
  ),
  skill(
    'docx',
    'Create and edit Word documents (.docx) with tracked changes, comments and formatting.',
    'Unpack the document, edit the XML with python-docx, and keep the styles of the template.',
  ),
  skill(
    'xlsx',
    'Read, write and analyse Excel spreadsheets with formulas, charts and pivot tables.',
    'Use openpyxl for formulas and pandas for analysis. Recalculate before saving.',
  ),
  skill(
    'pptx',
    'Build and edit PowerPoint presentations: slides, layouts and speaker notes.',
    'Start from the layout of the master slide; keep one message per slide.',
  ),
  skill(
    'csv-cleaner',
    'Clean messy CSV files: fix encodings, delimiters, duplicate rows and column types.',
    'Detect the delimiter with csv.Sniffer, normalise the encoding to UTF-8, then drop duplicates.',
  ),
  skill(
    'git-commit-helper',
    'Write clear conventional commit messages from the staged changes.',
    'Read `git diff --staged`, group the changes, and write a subject line under 72 characters.',
  ),
  skill(
    'git-rebase',
    'Rebase branches interactively, squash commits and resolve conflicts safely.',
    'Create a backup branch first. Use `git rebase -i` and mark fixups; continue after each conflict.',
  ),
  skill(
    'github-pr-review',
    'Review GitHub pull requests: read the diff, leave inline comments and suggest changes.',
    'Fetch the pull request with the gh CLI, check the tests, and comment on risky lines.',
  ),
  skill(
    'docker',
    'Write Dockerfiles, build images and run containers locally.',
    'Use multi-stage builds, pin base images, and run as a non-root user.',
  ),
  skill(
    'docker-compose',
    'Define multi-container applications in docker-compose.yml and manage their services.',
    'Declare healthchecks and depends_on conditions; keep secrets in an env file.',
  ),
  skill(
    'kubernetes-deploy',
    'Deploy applications to Kubernetes clusters with manifests, rollouts and health checks.',
    'Apply manifests with kubectl, watch the rollout status, and roll back on failed probes.',
  ),
  skill(
    'helm-charts',
    'Package Kubernetes applications as Helm charts with values and templates.',
    'Lint the chart, template it locally, then install it into a namespace.',
  ),
  skill(
    'terraform',
    'Plan and apply infrastructure as code with Terraform modules and remote state.',
    'Always run `terraform plan` and review the diff before `terraform apply`.',
  ),
  skill(
    'aws-s3',
    'Upload, list and sync files in Amazon S3 buckets, and create presigned URLs.',
    'Use the AWS CLI `aws s3 sync`; set the content type of uploaded objects.',
  ),
  skill(
    'postgres-query',
    'Write and optimise PostgreSQL queries, read EXPLAIN plans and add the right indexes.',
    'Find slow statements in pg_stat_statements and check the plan for sequential scans.',
  ),
  skill(
    'sql-migrations',
    'Create reversible database schema migrations and review them for long locks.',
    'Add columns as nullable first, backfill in batches, then add the constraint.',
  ),
  skill(
    'python-testing',
    'Write pytest unit tests with fixtures, parametrisation and mocks.',
    'Run `pytest -q`; prefer small fixtures and table-driven parametrised cases.',
  ),
  skill(
    'jest-testing',
    'Write Jest tests for JavaScript and TypeScript projects, with snapshots and mocks.',
    'Run `npx jest --watch`; keep snapshots small and review them like code.',
  ),
  skill(
    'playwright-e2e',
    'End-to-end browser testing with Playwright: selectors, traces and screenshots.',
    'Prefer role selectors, record a trace on failure, and run headless in CI.',
  ),
  skill(
    'api-docs',
    'Write OpenAPI specifications and reference documentation for HTTP APIs.',
    'Describe every operation with examples and error responses; lint the spec.',
  ),
  skill(
    'release-notes',
    'Summarise what changed between two tags for the people who use the software.',
    'Collect merged pull requests since the last tag, group them by area, and update CHANGELOG.md.',
    'Decide the next version number by semver: breaking changes bump the major version.',
  ),
  skill(
    'slack-notify',
    'Post messages and alerts to Slack channels through incoming webhooks.',
    'Format messages with blocks; never post secrets.',
  ),
  skill(
    'jira-tickets',
    'Create, update and search Jira issues, epics and sprints.',
    'Use JQL to search; link related issues and set the fix version.',
  ),
  skill(
    'email-drafting',
    'Draft professional emails and replies in the tone the user asks for.',
    'Open with the request, keep paragraphs short, and end with a clear next step.',
  ),
  skill(
    'meeting-notes',
    'Turn meeting transcripts into notes with decisions and action items.',
    'List attendees, decisions, open questions and owners of each action item.',
  ),
  skill(
    'translate',
    'Translate documents between languages while keeping their formatting.',
    'Keep code blocks and placeholders untouched; ask for a glossary of product terms.',
  ),
  skill(
    'image-resize',
    'Resize, crop and convert images (PNG, JPEG, WebP) in batches.',
    'Use Pillow; keep the aspect ratio and strip metadata when asked.',
  ),
  skill(
    'video-transcode',
    'Transcode, trim and compress videos with ffmpeg.',
    'Use H.264 with CRF 23 for general use; copy the audio stream when possible.',
  ),
  skill(
    'web-scraper',
    'Scrape web pages and extract structured data with CSS selectors.',
    'Respect robots.txt and rate limits when crawling websites; cache fetched pages.',
  ),
  skill(
    'regex-builder',
    'Build and explain regular expressions, with test cases for each one.',
    'Anchor patterns, avoid catastrophic backtracking, and show matches and non-matches.',
  ),
  skill(
    'json-schema',
    'Write and validate JSON Schema documents for configuration files and APIs.',
    'Use draft 2020-12; mark required properties and forbid additional ones where it helps.',
  ),
  skill(
    'log-analysis',
    'Search application logs for errors, spikes and slow requests.',
    'Group errors by message, plot them over time, and correlate them with deployments.',
  ),
  skill(
    'incident-postmortem',
    'Write blameless postmortems with a timeline, root cause and follow-up actions.',
    'Start from the alert, reconstruct the timeline, and list what made detection slow.',
  ),
  skill(
    'security-audit',
    'Audit code and dependencies for vulnerabilities and leaked secrets.',
    'Run a dependency scanner, search the history for keys, and rate each finding.',
  ),
  skill(
    'dependency-upgrade',
    'Upgrade npm and pip dependencies and fix what their new versions break.',
    'Read the changelog of each package and upgrade one major version at a time.',
  ),
  skill(
    'frontend-design',
    'Design distinctive, production-grade web interfaces with HTML, CSS and React.',
    'Pick a bold typographic direction and a restrained palette; avoid generic layouts.',
  ),
  skill(
    'data-visualization',
    'Plot charts from tabular data with matplotlib or Vega-Lite.',
    'Choose the chart for the question: bars to compare, lines for trends over time.',
  ),
  skill(
    'brand-guidelines',
    "Apply a company's colours, fonts and tone of voice to documents and slides.",
    'Use the primary colour for headings only; never stretch the logo.',
  ),
  skill(
    'mcp-builder',
    'Build Model Context Protocol servers that expose tools to agents.',
    'Define each tool with a JSON Schema input and return structured content.',
  ),
  skill(
    'skill-creator',
    'Create new agent skills: the SKILL.md file, scripts and references.',
    'Write a description that says when to use the skill; keep the body under 500 lines.',
  ),
  skill(
    'canvas-design',
    'Create posters and visual art as PNG or PDF files from a design philosophy.',
    'Sketch the composition first, then render at print resolution.',
  ),
  skill(
    'invoice-extraction',
    'Pull totals, dates and line items out of scanned invoices.',
    'Run OCR on each PDF page, then match the fields against the supplier templates.',
  ),
  skill(
    'calendar-scheduling',
    'Find meeting slots across calendars and send invitations.',
    'Respect working hours and time zones; propose three slots.',
  ),
  skill(
    'cron-jobs',
    'Write cron schedules and systemd timers for recurring jobs.',
    'Explain each schedule in words and log every run.',
  ),
];

export const QUERIES: CatalogQuery[] = [
  { q: 'pdf', expected: ['pdf'], first: 'pdf', kind: 'name' },
  { q: 'docker', expected: ['docker', 'docker-compose'], first: 'docker', kind: 'name' },
  { q: 'terraform', expected: ['terraform'], first: 'terraform', kind: 'name' },
  { q: 'translate', expected: ['translate'], first: 'translate', kind: 'name' },
  { q: 'docker-compose', expected: ['docker-compose'], first: 'docker-compose', kind: 'name' },
  { q: 'Helm Charts', expected: ['helm-charts'], first: 'helm-charts', kind: 'name' },
  { q: 'git', expected: ['git-rebase', 'git-commit-helper'], kind: 'name' },
  { q: 'kubernetes', expected: ['kubernetes-deploy', 'helm-charts'], kind: 'name' },
  { q: 'kube', expected: ['kubernetes-deploy'], kind: 'prefix' },
  { q: 'playwr', expected: ['playwright-e2e'], kind: 'prefix' },
  { q: 'dokcer', expected: ['docker', 'docker-compose'], kind: 'typo' },
  { q: 'terrafrom', expected: ['terraform'], kind: 'typo' },
  { q: 'kubernets deploy', expected: ['kubernetes-deploy'], kind: 'typo' },
  { q: 'jria', expected: ['jira-tickets'], kind: 'typo' },
  { q: 'pdfs', expected: ['pdf'], kind: 'plural' },
  { q: 'spreadsheets', expected: ['xlsx'], kind: 'plural' },
  { q: 'resize images', expected: ['image-resize'], kind: 'plural' },
  { q: 'fill a pdf form', expected: ['pdf'], kind: 'phrase' },
  { q: 'write unit tests in python', expected: ['python-testing'], kind: 'phrase' },
  { q: 'jest snapshot tests', expected: ['jest-testing'], kind: 'phrase' },
  { q: 'browser end-to-end tests', expected: ['playwright-e2e'], kind: 'phrase' },
  { q: 'commit message', expected: ['git-commit-helper'], kind: 'phrase' },
  { q: 'squash commits', expected: ['git-rebase'], kind: 'phrase' },
  { q: 'review a pull request', expected: ['github-pr-review'], kind: 'phrase' },
  { q: 'slow postgres query', expected: ['postgres-query'], kind: 'phrase' },
  { q: 'upload files to an s3 bucket', expected: ['aws-s3'], kind: 'phrase' },
  { q: 'meeting action items', expected: ['meeting-notes'], kind: 'phrase' },
  { q: 'mcp server', expected: ['mcp-builder'], kind: 'phrase' },
  { q: 'scrape a website', expected: ['web-scraper'], kind: 'phrase' },
  { q: 'excel', expected: ['xlsx'], kind: 'description' },
  { q: 'word document', expected: ['docx'], kind: 'description' },
  { q: 'powerpoint slides', expected: ['pptx'], kind: 'description' },
  { q: 'ffmpeg', expected: ['video-transcode'], kind: 'description' },
  { q: 'openapi', expected: ['api-docs'], kind: 'description' },
  { q: 'vulnerabilities and secrets', expected: ['security-audit'], kind: 'description' },
  { q: 'blameless postmortem', expected: ['incident-postmortem'], kind: 'description' },
  { q: 'make a chart from a table', expected: ['data-visualization'], kind: 'phrase' },
  { q: 'remove duplicate rows', expected: ['csv-cleaner'], kind: 'phrase' },
  { q: 'what changed since the last release', expected: ['release-notes'], kind: 'phrase' },
  { q: 'crop a png', expected: ['image-resize'], kind: 'phrase' },
  { q: 'run a task every night', expected: ['cron-jobs'], kind: 'phrase' },
  { q: 'find a time for a meeting', expected: ['calendar-scheduling'], kind: 'phrase' },
  { q: 'notify the team channel', expected: ['slack-notify'], kind: 'phrase' },
  { q: 'infrastructure as code', expected: ['terraform'], kind: 'phrase' },
  { q: 'scanned invoice totals', expected: ['invoice-extraction'], kind: 'phrase' },
  { q: 'validate a config file', expected: ['json-schema'], kind: 'phrase' },
  { q: 'semver', expected: ['release-notes'], kind: 'body' },
  { q: 'kubectl rollout', expected: ['kubernetes-deploy'], kind: 'body' },
];
