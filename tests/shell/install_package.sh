#!/usr/bin/env bash
# The Debian package (cpack -G DEB) installs perftk like a real tool: unpacked
# into a temporary root (nothing goes into the system), its perftk runs, it
# has a manual page per subcommand that lists every option `perftk help SUB`
# lists, its bash completion completes subcommands and options, `dpkg-deb -I`
# names the packages of the shared libraries perftk needs, and it holds what
# `cmake --install` puts in a prefix.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
BUILD=${PERFTK_BUILD_DIR:?set PERFTK_BUILD_DIR to the build folder (ctest does)}
for tool in cpack dpkg-deb dpkg-shlibdeps man; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: cmake, dpkg-dev, man-db)"
done
[ -f "$BUILD/doc/written" ] || fail "$BUILD has no manual pages: build the perftk_docs target"

cpack -G DEB -B "$WORK/package" --config "$BUILD/CPackConfig.cmake" >cpack.log 2>&1 ||
  { cat cpack.log >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$WORK"/package/perftk_*.deb)
dpkg-deb -x "$deb" root
installed=$WORK/root/usr/bin/perftk
export MANWIDTH=200 LC_ALL=C.UTF-8

check "the installed perftk runs from the temporary root and prints the build's version" \
  test "$("$installed" --version)" = "$("$PERFTK" --version)"

# Each option `perftk help SUB` lists (its long name, else its short one).
options_of() {
  "$PERFTK" help "$1" | sed -nE 's/^  (-[a-z], ?)?(-[-a-zA-Z0-9]+).*/\2/p; s/^  (-[a-z])( .*)?$/\1/p' |
    sed 's/{.*//'
}
page_lists_options() {  # subcommand, page file
  local option missing=0
  man -l --nh --nj "$2" >page.txt 2>page.err || { cat page.err >&2; return 1; }
  [ "$(options_of "$1" | wc -l)" -ge 2 ] || { echo "no options found in help $1" >&2; return 1; }
  for option in $(options_of "$1"); do
    grep -qE "^ +(-[a-z], )?$option( |$|\[)" page.txt ||
      { echo "perftk-$1(1) lacks $option" >&2; missing=1; }
  done
  return $missing
}
subcommands=$("$PERFTK" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
check "perftk --help lists the eight subcommands and help" test "$(wc -w <<<"$subcommands")" -eq 9
man1=root/usr/share/man/man1
man -l --nh --nj "$man1/perftk.1" >perftk.txt
for sub in $subcommands; do
  check "perftk(1) names $sub" grep -qE "^ +$sub( |$)" perftk.txt
  [ "$sub" = help ] && continue
  check "perftk-$sub(1) lists every option of 'perftk help $sub'" page_lists_options "$sub" "$man1/perftk-$sub.1"
  # page.txt is the page page_lists_options made.
  check "perftk-$sub(1) has EXIT STATUS, ENVIRONMENT and FILES" \
    test "$(grep -cE '^(EXIT STATUS|ENVIRONMENT|FILES)$' page.txt)" = 3
done
man -l --nh --nj "$man1/perftk.1" >page.txt
check "perftk(1) has EXIT STATUS, ENVIRONMENT and FILES" \
  test "$(grep -cE '^(EXIT STATUS|ENVIRONMENT|FILES)$' page.txt)" = 3

# The completion, sourced alone in a new bash, as bash-completion loads it.
complete_line() {  # words of the command line; the last one is completed
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _perftk
           printf "%s\n" "${COMPREPLY[@]}"' _ root/usr/share/bash-completion/completions/perftk "$@" |
    sort
}
check "the completion offers every subcommand" \
  test "$(complete_line perftk '')" = "$(sort <<<"$subcommands")"
check "the completion completes a subcommand's prefix" test "$(complete_line perftk cs-)" = cs-etm-decode
for sub in $subcommands; do
  [ "$sub" = help ] && continue
  check "the completion offers every option of $sub" \
    test "$(complete_line perftk "$sub" --)" = "$(options_of "$sub" | grep -- '^--' | sort)"
done

# Depends names the package of every shared library the binary needs (a
# release build links the others' archives: cmake/StaticLibraries.cmake);
# ldd says where each one is.
dpkg-deb -I "$deb" >info.txt
depends=$(sed -n 's/^ Depends: //p' info.txt | sed -E 's/ \([^)]*\)//g; s/, /\n/g')
needed=$(readelf -d "$installed" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]$/\1/p')
check "readelf -d lists the shared libraries perftk needs" test -n "$needed"
ldd "$installed" >ldd.txt
for name in $needed; do
  # "name => /path (address)", or for the loader "/path/name (address)"
  library=$(awk -v name="$name" '
    $1 == name && $3 ~ /^\// { print $3 } $1 ~ "/" name "$" { print $1 }' ldd.txt)
  [ -n "$library" ] || fail "ldd does not find $name, which perftk needs"
  package=$(dpkg -S "$library" 2>/dev/null || dpkg -S "$(realpath "$library")")
  package=${package%%:*}
  check "dpkg-deb -I: Depends names $package, for $name" grep -qxF "$package" <<<"$depends"
done

cmake --install "$BUILD" --prefix "$WORK/prefix" >install.log
check "cmake --install puts the files the package holds" \
  test "$(cd prefix && find . -type f | sort)" = "$(cd root/usr && find . -type f | sort)"

# Stripped (issue 32): the binary and the package under 5 MB (a release
# build's: an ASan build's code is 124 MB stripped); the debug info is the
# `debug` component, a file named by the binary's build id.
mb() { echo $(($(stat -c %s "$1") / 1000000)); }
if asan_build; then
  echo "note: an ASan build: the 5 MB size checks are for release builds ($(mb prefix/bin/perftk) MB here)"
else
  check "the installed binary is under 5 MB ($(mb prefix/bin/perftk) MB)" \
    test "$(stat -c %s prefix/bin/perftk)" -lt 5000000
  check "the package is under 5 MB ($(mb "$deb") MB)" test "$(stat -c %s "$deb")" -lt 5000000
fi
check "the installed binary has no debug info" \
  test -z "$(readelf -S prefix/bin/perftk | grep -F .debug_info)"
cmake --install "$BUILD" --prefix "$WORK/debug" --component debug >install_debug.log
id=$(readelf -n "$BUILD/src/perftk" | sed -n 's/.*Build ID: //p')
check "--component debug installs lib/debug/.build-id/${id:0:2}/${id:2}.debug" \
  test -s "debug/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
check "... which holds the debug info" \
  has -F .debug_info <(readelf -S "debug/lib/debug/.build-id/${id:0:2}/${id:2}.debug")
check "the installed binary has the build's build id" \
  has -F "Build ID: $id" <(readelf -n prefix/bin/perftk)
checks_summary
