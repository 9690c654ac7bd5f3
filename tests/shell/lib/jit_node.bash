# Shared by tests/shell/jit_*.sh: record a short Node.js run with a jitdump
# and make the oracle output with `perf inject --jit`. Sourced after common.bash.

require_node() {
  command -v node >/dev/null || skip "node is not installed (Node.js writes the jitdump)"
}

# Writes bench.js: two hot JS functions for BENCH_MS milliseconds (800).
write_bench_js() {
  cat >bench.js <<JS
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sieve(limit) {
  const a = new Uint8Array(limit + 1); let c = 0;
  for (let i = 2; i <= limit; i++) { if (!a[i]) { c++; for (let j = i * i; j <= limit; j += i) a[j] = 1; } }
  return c;
}
const t0 = Date.now(); let acc = 0;
while (Date.now() - t0 < ${BENCH_MS:-800}) { acc += fib(22); acc += sieve(100000); }
console.log(acc > 0 ? 'ok' : 'bad');
JS
}

# record_node OUT [perf record options...] [-- node options...]: records
# `node --perf-prof bench.js` with -k 1 (the jitdump's clock).
record_node() {
  local out=$1
  shift
  local perf_opts=() node_opts=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do perf_opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  node_opts=("$@")
  write_bench_js
  perf record -q -k 1 -e cpu-clock "${perf_opts[@]}" -o "$out" \
    node --perf-prof "${node_opts[@]}" bench.js >node.out 2>node.err ||
    skip "perf record of node failed: $(tail -1 node.err)"
  ls jit-*.dump >/dev/null 2>&1 || fail "node --perf-prof wrote no jit-<pid>.dump"
}

# The oracle: perf inject --jit, with its ~/.debug copies kept out of $HOME.
perf_inject_jit() {
  HOME="$WORK/perf-home" perf inject --jit -i "$1" -o "$2" 2>inject.err ||
    fail "perf inject --jit failed: $(tail -1 inject.err)"
}

# perftk jit with HOME pointed at an empty dir, failing if anything appears there.
perftk_jit() {
  mkdir -p "$WORK/perftk-home"
  HOME="$WORK/perftk-home" "$PERFTK" jit -q "$@" || fail "perftk jit $* failed"
  [ -z "$(ls -A "$WORK/perftk-home")" ] || fail "perftk jit wrote into \$HOME: $(ls -A "$WORK/perftk-home")"
}

# Every sample: thread, time, address and symbol (dso paths differ by --jit-dir).
samples_of() {
  # --no-inline: inline frames come from each .so's line tables, and ours
  # carry pc ranges perf's lack (addr2line then answers differently).
  perf script -i "$1" -F tid,time,ip,sym --no-inline "${@:2}" 2>"$1.script.err"
}

# `children_report_of FILE`: perf report --children with each entry's call
# chains folded to one line, as a sorted list of entries with their sorted
# chains: perf orders chains of equal weight by dso pointer (heap order,
# which differs from run to run), and entries of equal weight by address
# (which differs between merged and per-load files), so only the set of
# entries and chains is compared.
children_report_of() {
  report_of "$1" --children --sort sym -g folded,0.5,caller,function,percent |
    python3 -c '
import sys
blocks, block = [], []
def flush():
    if block:
        blocks.append("".join(block[:1] + sorted(block[1:])))
    block.clear()
for line in sys.stdin:
    if line[:1].isspace():
        flush()
    block.append(line)
flush()
sys.stdout.writelines(sorted(blocks))'
}

# `record_and_inject NAME RECORD_ARGS...`: in a new folder NAME, which the
# shell enters, a Node recording perf.data (record_node RECORD_ARGS), perf
# inject --jit's perf.jit.data and perftk jit's ours.data (files in ours/).
record_and_inject() {
  mkdir "$1" && cd "$1"
  record_node perf.data "${@:2}"
  perf_inject_jit perf.data perf.jit.data
  mkdir ours
  perftk_jit -i perf.data -o ours.data --jit-dir ours
}
