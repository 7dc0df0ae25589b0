#!/usr/bin/env bash
# Script gate of word_frequency. Recounts the words of article.txt (case-insensitive, a word is a
# run of letters) and checks top-words.txt: five lines `<count> <word>`, each count right, most
# frequent first, and no word left out that occurs more often than the last line's (ties in any order).
# Prints one JSON line {passed, message, metrics}; the gate reads it, so the exit status is 0.
set -uo pipefail

if [ ! -f top-words.txt ]; then
  echo '{"passed": false, "message": "top-words.txt does not exist", "metrics": {"correct_lines": 0}}'
  exit 0
fi

tr -cs 'A-Za-z' '\n' < article.txt | tr 'A-Z' 'a-z' | awk -v want=5 '
  function json_text(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return s }
  function fail(msg) { if (problem == "") problem = msg }
  NR == FNR { if (NF) count[$1]++; next }
  {
    sub(/\r$/, "")
    if ($0 ~ /^[ \t]*$/) next
    lines++
    if (NF != 2 || $1 !~ /^[0-9]+$/) { fail("line " lines " is not `<count> <word>`: " substr($0, 1, 40)); next }
    word = tolower($2)
    if (word in seen) fail("\"" word "\" is listed twice")
    seen[word] = 1
    if (count[word] == $1 + 0) correct++
    else fail("\"" word "\" occurs " (count[word] + 0) " times, not " $1)
    if (lines > 1 && $1 + 0 > previous) fail("line " lines " has a higher count than the line before it")
    previous = $1 + 0
    if (lines == 1 || $1 + 0 < lowest) lowest = $1 + 0
  }
  END {
    if (lines != want) fail("expected " want " lines, found " (lines + 0))
    # A valid top five leaves out no word that occurs more often than its last line.
    for (w in count) if (!(w in seen) && lines > 0 && count[w] > lowest) {
      fail("\"" w "\" occurs " count[w] " times but is not listed")
      break
    }
    passed = problem == "" ? "true" : "false"
    message = problem == "" ? "the five most frequent words, with the right counts" : problem
    printf "{\"passed\": %s, \"message\": \"%s\", \"metrics\": {\"correct_lines\": %d}}\n", passed, json_text(message), correct
  }
' - top-words.txt
