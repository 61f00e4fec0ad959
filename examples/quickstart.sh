#!/bin/sh
# The README's quickstart: a user, a skill, a ghost, bot, team and task; the task's skills as exact
# refs; a download with a task token; a sandbox folder synced by the client. Run it from the
# repository root while the service runs (`npm start`):
#
#   sh examples/quickstart.sh
#
# It runs in a shell of its own (closing nothing), and each run makes a user of its own, so it can
# run again on the same service. A refused request stops it with what the service said. Set SR_URL
# (default http://localhost:3000), ADMIN_KEY (default: the key file of the embedded database) or
# WORK (a scratch folder) when yours differ. Needs curl, python3 and node.
set -eu
SR_URL="${SR_URL:-http://localhost:3000}"
if [ -z "${ADMIN_KEY:-}" ]; then
  [ -r data/admin-api-key ] || {
    echo "quickstart: no data/admin-api-key here: run from the repository root after npm start, or set ADMIN_KEY" >&2
    exit 1
  }
  ADMIN_KEY=$(cat data/admin-api-key)
fi
WORK="${WORK:-$(mktemp -d)}"
mkdir -p "$WORK"
# Seconds and this process's id: two runs in the same second still make two users.
USER_NAME="alice-$(date +%s)-$$"

# call METHOD PATH [curl options]: as $KEY, prints the answer; on an error, says what the service
# answered and stops.
call() {
  method=$1 path=$2
  shift 2
  status=$(curl -sS -o "$WORK/answer.json" -w '%{http_code}' -X "$method" -H "X-API-Key: $KEY" "$@" "$SR_URL/api/$path") || {
    echo "quickstart: no answer from $SR_URL: is the service running (npm start)? Set SR_URL if it listens elsewhere" >&2
    exit 1
  }
  if [ "$status" -ge 400 ]; then
    echo "quickstart: $method /api/$path answered $status $(python3 -c 'import json, sys
try: e = json.load(open(sys.argv[1])); print(e["code"] + ": " + e["message"])
except Exception: print(open(sys.argv[1]).read())' "$WORK/answer.json")" >&2
    exit 1
  fi
  cat "$WORK/answer.json"
}
post() { call POST "$1" -H 'Content-Type: application/json' -d "$2"; }
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[2])[sys.argv[1]])' "$1" "$2"; }

# 1. The admin creates a user; everything after this acts as that user.
KEY=$ADMIN_KEY
CREATED=$(post users "{\"user_name\": \"$USER_NAME\"}")
KEY=$(field api_key "$CREATED")
echo "1. user $USER_NAME"

# 2. A skill: a folder holding SKILL.md, published in the user's personal namespace by the client,
#    which checks it with the service's own rules first.
mkdir -p "$WORK/hello-world"
cat > "$WORK/hello-world/SKILL.md" <<'EOF_SKILL'
---
name: hello-world
description: Greets the user by name. Use when a conversation starts.
allowed-tools: Read Bash(echo *)
---
Say hello, then ask how to help.
EOF_SKILL
PUBLISHED=$(SKILL_RESOLVER_URL="$SR_URL" SKILL_RESOLVER_TOKEN="$KEY" node bin/skill-resolver.js publish "$WORK/hello-world" --json)
SKILL_ID=$(field skill_id "$PUBLISHED")
echo "2. skill hello-world: id $SKILL_ID"

# 3. A ghost (a persona using the skill), a bot made from it, a team of that bot, a task.
GHOST_ID=$(field id "$(post ghosts '{"name": "greeter", "skills": ["hello-world"], "preload_skills": ["hello-world"]}')")
BOT_ID=$(field id "$(post bots "{\"name\": \"greeter-bot\", \"ghost_id\": $GHOST_ID}")")
TEAM_ID=$(field id "$(post teams "{\"name\": \"front-desk\", \"members\": [{\"bot_id\": $BOT_ID}]}")")
TASK_ID=$(field id "$(post tasks "{\"team_id\": $TEAM_ID, \"title\": \"Welcome a visitor\"}")")
echo "3. ghost $GHOST_ID, bot $BOT_ID, team $TEAM_ID, task $TASK_ID"

# 4. The task's skills: each name as an exact ref, and the fingerprint.
echo "4. the task's skills:"
call GET "tasks/$TASK_ID/skills" > "$WORK/skills.json"
python3 -m json.tool "$WORK/skills.json"

# 5. A task token (what a sandbox is given) downloads the package; its sha256 is the content_hash.
TOKEN=$(field token "$(post "tasks/$TASK_ID/tokens" '{"ttl_seconds": 3600}')")
KEY=$TOKEN
call GET "skills/$SKILL_ID/download" > "$WORK/hello-world-download.zip"
python3 - "$WORK/skills.json" "$WORK/hello-world-download.zip" <<'EOF_CHECK'
import hashlib, json, sys
ref = json.load(open(sys.argv[1]))["skill_refs"]["hello-world"]
digest = "sha256:" + hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert digest == ref["content_hash"], (digest, ref["content_hash"])
print("5. download matches", digest)
EOF_CHECK

# 6. The sandbox client syncs the task's skills into a folder and checks them; a second sync
#    costs one request answered 304 and downloads nothing.
export SKILL_RESOLVER_URL="$SR_URL" SKILL_RESOLVER_TOKEN="$TOKEN"
node bin/skill-resolver.js sync --task "$TASK_ID" --dir "$WORK/sandbox/skills"
node bin/skill-resolver.js sync --task "$TASK_ID" --dir "$WORK/sandbox/skills" --json
node bin/skill-resolver.js verify --dir "$WORK/sandbox/skills"
cat "$WORK/sandbox/skills/hello-world/SKILL.md"
echo "6. synced into $WORK/sandbox/skills"
