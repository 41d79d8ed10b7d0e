#!/usr/bin/env bash
# docs.sh: regenerate, from one real run of the default ladder on this
# machine, the figures the docs quote, each stamped with the host and date:
#   README.md       the ladder excerpt between the ladder-excerpt markers
#   docs/vm.md      the VM rows (switch, exit, creation, memory) and the VM
#                   decomposition, between the vm-figures markers
# Figures elsewhere in docs/ are dated records of one investigation (what
# was measured, when, on which machine), not this machine's figures.
# It measures for about a minute and installs nothing. GO names the go
# command (default: go). docs/report.png is of three files (a ladder, rings,
# pools), made as docs/report.md says.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { printf 'docs: %s\n' "$*" >&2; exit 1; }

begin='<!-- ladder-excerpt:begin -->' end='<!-- ladder-excerpt:end -->'
grep -qxF "$begin" README.md && grep -qxF "$end" README.md ||
	die "README.md has no '$begin' ... '$end' lines around the ladder excerpt"
vmbegin='<!-- vm-figures:begin -->' vmend='<!-- vm-figures:end -->'
grep -qxF "$vmbegin" docs/vm.md && grep -qxF "$vmend" docs/vm.md ||
	die "docs/vm.md has no '$vmbegin' ... '$vmend' lines around its figures"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${GO:-go} build -buildvcs=auto -o "$tmp/ctxbench" ./cmd/ctxbench

# The run. Exit status 1 means some measurement failed and the rest are
# reported: the excerpt is still made, and names what it lacks.
when=$(date -u '+%Y-%m-%d %H:%M UTC') start=$(date +%s) status=0
"$tmp/ctxbench" --color never --wide --export-json "$tmp/ladder.json" >"$tmp/ladder.txt" || status=$?
took=$(($(date +%s) - start))
[ "$status" -le 1 ] || die "ctxbench exited with status $status"
[ "$status" -eq 0 ] || echo "docs: some measurements failed; the excerpt is made from the rest" >&2
# The first line names the host; laid out at 100 columns it may go on in
# indented lines.
host=$(awk 'NR == 1 { h = $0; sub(/^ctxbench — /, "", h); next }
	!stop && /^  / { s = $0; sub(/^ +/, "", s); h = h " " s; next } { stop = 1 } END { print h }' "$tmp/ladder.txt")

# The excerpt: the table's header, every placement of these benchmarks, the
# intervals' legend and the footnotes those rows reference.
rows='floor/asm-swap goroutine/chan-gomaxprocs1 thread/pipe thread/futex-spin process/pipe process/pipe-mt container/pipe-plain container/pipe-full vm/switch-user'
sed 's/[[:space:]]*$//' "$tmp/ladder.txt" >"$tmp/table"
# The table is laid out at its full width (--wide: every column, as the
# README's legend explains them); a line that starts with spaces goes on
# the line above.
awk -v rows="$rows" 'BEGIN { n = split(rows, r, " "); for (i = 1; i <= n; i++) want[r[i]] = 1 }
	/^(RUNG|BENCHMARK) / { table = 1; next } table && /^$/ { exit }
	table && /^[^ ]/ { keep = want[$1] || want[$2] } table && keep' "$tmp/table" >"$tmp/rows"
for r in $rows; do
	awk -v r="$r" '$1 == r || $2 == r { found = 1 } END { exit !found }' "$tmp/rows" || echo "docs: $r has no row in this run" >&2
done
{
	echo "# $host, $when, $took s"
	grep -m1 -E '^(RUNG|BENCHMARK) ' "$tmp/table"
	cat "$tmp/rows"
	echo ...
	awk '/^[^ ]/ { p = /^±REPRO/ && !a++ || /^′/ && !b++ || /^±CI covers/ && !c++ || /^host state:/ && !d++ } p' "$tmp/table"
	refs=$(grep -oE '\[[0-9]+\]' "$tmp/rows" || true)
	if [ -n "$refs" ]; then
		echo ...
		awk -v refs="$refs" 'BEGIN { split(refs, r); for (i in r) want[r[i]] = 1 }
			/^[^ ]/ { p = want[$1] && !seen[$1]++ } p' "$tmp/table"
	fi
} >"$tmp/excerpt"

# splice FILE BEGIN END EXCERPT: replace what stands between the marker
# lines BEGIN and END of FILE by EXCERPT, fenced as code.
splice() {
	awk -v begin="$2" -v end="$3" -v excerpt="$4" '
		$0 == begin { print; print "```"; while ((getline l < excerpt) > 0) print l; print "```"; skip = 1; next }
		$0 == end { skip = 0 }
		!skip' "$1" >"$tmp/spliced"
	cp "$tmp/spliced" "$1"
}
splice README.md "$begin" "$end" "$tmp/excerpt"
echo "README.md: ladder excerpt rewritten ($(wc -l <"$tmp/rows") rows): $(head -1 "$tmp/excerpt")"

# docs/vm.md: every table's vm rows under that table's header, the mark's
# legend and the VM decomposition lines.
{
	echo "# $host, $when"
	awk '/^(RUNG|BENCHMARK|CONTEXT|MEASUREMENT) / { head = $0; shown = 0; next } /^$/ { head = "" }
		head != "" && /^[^ ]/ { vm = $1 == "vm" || $1 ~ /(^|\/)vm(\/|$)/ }
		head != "" && vm { if (!shown++) print head; print }' "$tmp/table"
	grep -E '^(‡ |VM exit: |VM-to-VM hop )' "$tmp/table" || true
} >"$tmp/vm"
[ "$(grep -cE '^(vm |vm/|[a-z]+/vm )' "$tmp/vm")" -gt 0 ] || echo "docs: no vm row in this run (no usable /dev/kvm?); docs/vm.md says so" >&2
splice docs/vm.md "$vmbegin" "$vmend" "$tmp/vm"
echo "docs/vm.md: VM figures rewritten ($(grep -cE '^(vm |vm/|[a-z]+/vm )' "$tmp/vm") rows)"

