#!/usr/bin/env bash
# A real Android kernel recording (simpleperf record -e cs-etm:k, AOSP's
# perf_kernel.data): kernel and vendor modules mapped by
# "[kernel.kallsyms]_stext" and /vendor/lib/modules/*.ko MMAPs, the kernel's
# vmlinux not public, one module (rq_stats.ko, 8-byte build id a535d7222f9f01d1,
# recorded zero-padded) given. perftk must
#   - decode the module's trace where the kernel laid it out (.text, 4 KB
#     aligned, after arm64's .plt) and write its ranges from .text, as
#     simpleperf's inject does: every range ends on a branch of the .ko's
#     .text (checked with llvm-objdump, not with perftk), and the short build
#     id is kept;
#   - follow the module's clang CFI jump table, whose branches the .ko holds
#     as `b .` until the kernel relocates them (R_AARCH64_JUMP26 to .text+X,
#     read with llvm-readelf -r): the trace's jump at 0x2ec goes to wakeup_user
#     (0x140), not back to itself;
#   - warn that kernel trace is skipped for want of a vmlinux, naming
#     --vmlinux and --kcore;
#   - give create_llvm_prof a module profile it accepts (exit 0). The .ko has
#     no DWARF, so the profile it writes has no function: AutoFDO attributes
#     addresses through line tables.
source "$(dirname "$0")/lib/common.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_kernel.data" ] || skip "no perf_kernel.data at $ETM"
OBJDUMP=$(command -v llvm-objdump || command -v llvm-objdump-16) || skip "no llvm-objdump"

"$PERFTK" cs-etm-decode -i "$ETM/perf_kernel.data" --symfs "$ETM" --format=autofdo \
  --dso rq_stats.ko -o mod.afdo 2>err || fail "cs-etm-decode: $(tail -1 err)"
grep -q "kernel trace is skipped; give --vmlinux PATH.*--kcore" err ||
  fail "no warning naming --vmlinux/--kcore: $(cat err)"
grep -qx "// build_id: 0xa535d7222f9f01d1000000000000000000000000" mod.afdo ||
  fail "build id: $(grep build_id mod.afdo)"
grep -qx "// /vendor/lib/modules/rq_stats.ko" mod.afdo || fail "module path missing"

# The .ko's branch instructions, by offset in .text.
"$OBJDUMP" -d --section=.text "$ETM/rq_stats.ko" |
  awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); m = $NF; for (i = 2; i <= NF; ++i) if ($i !~ /^[0-9a-f][0-9a-f]$/) { m = $i; break }
       if (m ~ /^(b|bl|br|blr|ret|cbz|cbnz|tbz|tbnz)$/ || m ~ /^b\./) print $1 }' |
  while read -r a; do printf '%x\n' $((0x$a)); done | sort -u >branches
[ "$(wc -l <branches)" -gt 20 ] || fail "llvm-objdump found no branches: $(head -3 branches)"
ranges=$(awk 'NR == 1 { n = $1; next } NR <= n + 1 { print }' mod.afdo)
[ "$(echo "$ranges" | wc -l)" -ge 5 ] || fail "too few module ranges: $ranges"
while IFS=- read -r start rest; do
  end=${rest%%:*}
  grep -qx "$end" branches || fail "range $start-$end does not end on a branch of .text"
done <<<"$ranges"

READELF=$(command -v llvm-readelf || command -v llvm-readelf-16) || skip "no llvm-readelf"
"$READELF" -r "$ETM/rq_stats.ko" | has -E '^0+2ec +[0-9a-f]+ +R_AARCH64_JUMP26 +0+ +\.text \+ 140$' ||
  fail "rq_stats.ko has no JUMP26 to .text+140 at 0x2ec"
grep -q '^2ec->140:' mod.afdo || fail "the jump at 0x2ec was not followed to 0x140: $(grep -- '->' mod.afdo)"
grep -q '^2ec->2ec:' mod.afdo && fail "the unrelocated branch at 0x2ec was followed"

CREATE_LLVM_PROF=$(command -v create_llvm_prof) || { echo "no create_llvm_prof: its check skipped"; exit 0; }
"$CREATE_LLVM_PROF" --profiler=text --binary="$ETM/rq_stats.ko" --profile=mod.afdo \
  --out=mod.prof >cl.log 2>&1 || fail "create_llvm_prof rejects the module profile: $(tail -2 cl.log)"
[ -s mod.prof ] || fail "create_llvm_prof wrote nothing"
echo "PASS"
