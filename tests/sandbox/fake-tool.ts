/** A real target: a bash script whose behaviour depends on its first argument. */
export const FAKE_TOOL = `#!/usr/bin/env bash
case "$1" in
  echo) shift; printf '%s\\n' "$@" ;;
  upper) tr a-z A-Z ;;
  fail) echo "failing with $2" >&2; exit "$2" ;;
  die) kill -s "$2" $$ ;;
  nap) sleep "$2" ;;
  wait-signal)
    trap 'echo got-term; exit 42' TERM
    trap 'echo got-int; exit 43' INT
    echo ready
    sleep 30 & wait ;;
  *) echo "ok $*" ;;
esac
`;
