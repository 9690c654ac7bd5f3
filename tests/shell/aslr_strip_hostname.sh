#!/usr/bin/env bash
# aslr --strip-hostname drops the host name from the header, as
# --strip-cmdline drops the command line (issue 24); without it both stay,
# and perf report reads the output alike.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
require_perf
build_workload
perf record -q -e cpu-clock -o in.data -- ./workload 50 1 >/dev/null 2>&1 || skip "perf record failed"
header() { perf report -i "$1" --header-only 2>/dev/null; }
host=$(header in.data | sed -n 's/^# hostname : //p')
check "the input names the host ($host)" test -n "$host"
"$PERFTK" aslr -q -i in.data -o kept.data
check "without the flags the host name stays" has "^# hostname : $host\$" <(header kept.data)
"$PERFTK" aslr -i in.data -o stripped.data --strip-hostname --strip-cmdline 2>aslr.err
check "--strip-hostname: no host name in the header" test -z "$(header stripped.data | grep '^# hostname')"
check "--strip-cmdline: no command line in the header" test -z "$(header stripped.data | grep '^# cmdline')"
check "the summary says so" has 'removed .*hostname' aslr.err
check "perf report reads it alike" cmp -s <(report_of kept.data --sort sym) <(report_of stripped.data --sort sym)
checks_summary
