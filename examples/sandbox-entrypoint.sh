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

# --verify re-hashes every file the lock lists and rebuilds any skill folder that differs, so a
# damaged sandbox heals by starting again, and nothing is left for a separate `verify`. The sync
# ends within --timeout seconds whatever the network does (exit 1, previous copies kept).
# If $SKILLS_DIR/.skill-resolver.lock.json is gone, the client takes a folder of a skill's name as
# its own only when it is exactly that skill's package; any other is refused (exit 1, the folder
# left as it is, its path in the message): move that folder away, then start again.
status=0
$SKILL_RESOLVER sync --task "$TASK_ID" --dir "$SKILLS_DIR" --strict --verify --timeout "${SYNC_TIMEOUT:-300}" ||
  status=$?
case "$status" in
  0) ;;
  3) echo "entrypoint: some selected skills do not resolve; starting without them" >&2 ;;
  *)
    echo "entrypoint: the skills could not be synced (exit $status); starting again retries and repairs" >&2
    exit "$status"
    ;;
esac
[ "$#" -eq 0 ] || exec "$@"
