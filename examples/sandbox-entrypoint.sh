#!/bin/sh
# A sandbox's entrypoint: the task's exact skills into $SKILLS_DIR, verified, then the agent.
# The orchestrator passes TASK_ID, SKILL_RESOLVER_URL (the service root) and SKILL_RESOLVER_TOKEN
# (a task token it minted with POST /api/tasks/{id}/tokens); the arguments are the agent's command.
set -eu
: "${TASK_ID:?TASK_ID is required}"
: "${SKILL_RESOLVER_URL:?SKILL_RESOLVER_URL is required}"
: "${SKILL_RESOLVER_TOKEN:?SKILL_RESOLVER_TOKEN is required}"
export SKILL_RESOLVER_URL SKILL_RESOLVER_TOKEN
SKILLS_DIR="${SKILLS_DIR:-$HOME/skills}"
# The package's command in this checkout (npm ci && npm run build), the one `npx skill-resolver`
# runs, without npm's own start-up; elsewhere e.g. SKILL_RESOLVER=skill-resolver once installed.
SKILL_RESOLVER="${SKILL_RESOLVER:-$(dirname "$0")/../bin/skill-resolver.js}"

status=0
$SKILL_RESOLVER sync --task "$TASK_ID" --dir "$SKILLS_DIR" --strict || status=$?
case "$status" in
  0) ;;
  3) echo "entrypoint: some selected skills do not resolve; starting without them" >&2 ;;
  *) echo "entrypoint: the skills could not be synced (exit $status)" >&2; exit "$status" ;;
esac
$SKILL_RESOLVER verify --dir "$SKILLS_DIR"
[ "$#" -eq 0 ] || exec "$@"
