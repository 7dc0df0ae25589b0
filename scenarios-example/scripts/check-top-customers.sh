#!/usr/bin/env bash
# Script gate of top_customers_report. Recomputes the three biggest spenders from shop.db and
# compares them with top-customers.csv, ignoring CSV quoting and CRLF line ends.
# Prints one JSON line {passed, message, metrics}; the gate reads it, so the exit status is 0.
set -uo pipefail

say() { # passed matching_rows message
  printf '{"passed": %s, "message": "%s", "metrics": {"matching_rows": %d}}\n' "$1" "$3" "$2"
  exit 0
}

[ -f top-customers.csv ] || say false 0 "top-customers.csv does not exist"

expected=$(sqlite3 -batch -noheader -separator , shop.db "
  SELECT c.name, printf('%.2f', sum(o.amount))
  FROM orders o JOIN customers c ON c.id = o.customer_id
  GROUP BY c.id ORDER BY sum(o.amount) DESC LIMIT 3") || say false 0 "cannot read shop.db"
# Data rows of the agent's file, normalised: no CR, no double quotes, no blank lines, no header.
actual=$(tr -d '\r"' < top-customers.csv | awk 'NF' | tail -n +2)

matching=0
row=0
while IFS= read -r want; do
  row=$((row + 1))
  got=$(printf '%s\n' "$actual" | sed -n "${row}p")
  [ "$got" = "$want" ] && matching=$((matching + 1))
done <<<"$expected"

rows=$(printf '%s' "$actual" | awk 'END { print NR }')
if [ "$matching" -eq 3 ] && [ "$rows" -eq 3 ]; then
  say true 3 "the three biggest spenders, highest first, with their totals"
fi
say false "$matching" "$matching of 3 rows match (name and total, in order); the file has $rows data row(s)"
