#!/usr/bin/env bash
# Every path a run reads is an input, whenever it is read, and -o never
# replaces one; -o through symbolic links never replaces a link (issue 26:
# D1, D2, D3, D11, D12). Each case was a one-line reproducer that exited 0
# and replaced the file before its fix:
#  - cs-etm-decode --kcore K -o K (the kcore was opened outside the input
#    path, after the output);
#  - cs-etm-decode -i @LIST -o LIST (the list was read before -o was open);
#  - -o a dangling symbolic link (the link was replaced by a regular file),
#    -o a loop of links (the same);
#  - an explicit --vmlinux or --kcore that is a FIFO, a folder or missing
#    only warned and exited 0;
#  - an @LIST with CRLF line ends kept the CR in every path;
#  - -o a socket file failed with ENXIO, where the README promised it was
#    written in place (D13): it is refused with what to do instead.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"

copy_etm_recording
decode=("$PERFTK" cs-etm-decode -q --symfs etm)

# refused WHAT PATH SHA ROLE: the last run refused -o PATH, named it and the
# input's ROLE, and left it as it was.
refused() {
  check "$1: exit 1 (got $rc)" test "$rc" = 1
  check "$1: the message names $2 ($(last_error))" err_has "$2"
  check "$1: the message names the $4" err_has "the output \\(-o\\) is also the $4"
  check "$1: $2 unchanged" test "$(sha_of "$2")" = "$3"
  check "$1: no temporary file" no_temps_in "$WORK"
}

# D1: --kcore K -o K, in both the perf and the profile output paths.
echo "not really a kcore" >K
sha=$(sha_of K)
run "${decode[@]}" -i etm/perf_etm.data --kcore K -o K
refused "--kcore K -o K" K "$sha" 'kcore'
run "${decode[@]}" -i etm/perf_etm.data --kcore K --format=autofdo -o K
refused "--kcore K --format=autofdo -o K" K "$sha" 'kcore'
cp etm/etm_test_loop V
sha=$(sha_of V)
run "${decode[@]}" -i etm/perf_etm.data --vmlinux V -o V
refused "--vmlinux V -o V" V "$sha" 'kernel image'

# D2: -i @LIST -o LIST, for a profile and for a perf.data.
printf 'etm/perf_etm.data\n' >LIST
sha=$(sha_of LIST)
run "${decode[@]}" -i @LIST --format=autofdo -o LIST
refused "-i @LIST --format=autofdo -o LIST" LIST "$sha" 'list of inputs'
run "${decode[@]}" -i @LIST -o LIST
refused "-i @LIST -o LIST" LIST "$sha" 'list of inputs'
ln -s LIST LINK
run "${decode[@]}" -i @LIST --format=autofdo -o LINK
refused "-i @LIST -o a link to LIST" LIST "$sha" 'list of inputs'
check "-i @LIST -o a link to LIST: the link stays" test -L LINK
run "$PERFTK" merge-profiles -q -o LIST @LIST
check "merge-profiles -o LIST @LIST: exit 1 (got $rc)" test "$rc" = 1
check "merge-profiles -o LIST @LIST: LIST unchanged" test "$(sha_of LIST)" = "$sha"

# D11: CRLF line ends, blank lines and comments in a list.
printf '# the recording of the loop\r\n\r\netm/perf_etm.data\r\n' >CRLF
run "${decode[@]}" -i @CRLF --format=autofdo -o crlf.txt
check "an @LIST with CRLF, a comment and a blank line: exit 0 ($(last_error))" test "$rc" = 0
"${decode[@]}" -i etm/perf_etm.data --format=autofdo -o direct.txt
check "an @LIST with CRLF: the profile of its one recording" cmp -s crlf.txt direct.txt

# D3: -o a dangling link writes the file it names and keeps the link; a
# loop of links is refused and stays.
ln -s profile.txt DANGLING
run "${decode[@]}" -i etm/perf_etm.data --format=autofdo -o DANGLING
check "-o a dangling link: exit 0 ($(last_error))" test "$rc" = 0
check "-o a dangling link: the link stays a link" test -L DANGLING
check "-o a dangling link: the file it names is written" cmp -s profile.txt direct.txt
mkdir sub
ln -s ../sub/deep.txt sub/REL
run "${decode[@]}" -i etm/perf_etm.data --format=autofdo -o sub/REL
check "-o a relative dangling link in a folder: the link stays, its target written" \
  test -L sub/REL -a -s sub/deep.txt
ln -s LOOP2 LOOP1
ln -s LOOP1 LOOP2
run "${decode[@]}" -i etm/perf_etm.data --format=autofdo -o LOOP1
check "-o a loop of links: exit 1 (got $rc)" test "$rc" = 1
check "-o a loop of links: the message says so ($(last_error))" err_has 'loop of symbolic links'
check "-o a loop of links: both links stay" test -L LOOP1 -a -L LOOP2
run "$PERFTK" copy -i etm/perf_etm.data -o LOOP2
check "copy -o a loop of links: exit 1, the links stay" test "$rc" = 1 -a -L LOOP1 -a -L LOOP2
check "no temporary file after the link cases" no_temps_in "$WORK"

# D12: an explicit kernel image that is not a regular file is an error.
mkfifo FIFO
mkdir DIR
for source in --vmlinux --kcore; do
  for path in FIFO DIR missing; do
    run "${decode[@]}" -i etm/perf_etm.data "$source" "$path" -o out.data
    check "$source $path: exit 1 (got $rc)" test "$rc" = 1
    check "$source $path: the message names it ($(last_error))" err_has "$path"
    check "$source $path: no output" test ! -e out.data
  done
done
# D13: a socket file cannot be opened; the message says what to do.
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' SOCK
run "$PERFTK" copy -i etm/perf_etm.data -o SOCK
check "-o a socket: exit 1 (got $rc)" test "$rc" = 1
check "-o a socket: the message says so and what to do ($(last_error))" \
  err_has 'SOCK: the output \(-o\) is a socket.*-o -'
check "-o a socket: it stays a socket" test -S SOCK
checks_summary
