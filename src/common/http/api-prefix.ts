// The global prefix of the HTTP API: every route is under `/api/` but the few that are served at
// the root too (the well-known index, docs/well-known.md).
export const API_PREFIX = 'api';
