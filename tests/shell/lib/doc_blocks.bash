# The shell blocks of the docs that tests run as printed. Sourced, never run.
#   doc_blocks MARKER DIR DOC...  writes each ```sh block that follows a
#                                 "<!-- MARKER -->" line of the DOCs, in
#                                 order, to DIR/block.N.sh (N from 1) and
#                                 the doc's file name to DIR/block.N.doc;
#                                 prints how many
#   missing_tool BLOCK            prints the first of the tools a block may
#                                 need (node, python3.11) that it names and
#                                 that is not installed; nothing if none
doc_blocks() {
  local marker=$1 dir=$2 doc n=0
  shift 2
  for doc in "$@"; do
    n=$(awk -v marker="<!-- $marker -->" -v dir="$dir" -v n="$n" -v doc="$(basename "$doc")" '
      $0 == marker { armed = 1; next }
      armed && /^```sh$/ {
        n++; file = dir "/block." n ".sh"; inside = 1; armed = 0
        print doc > (dir "/block." n ".doc"); close(dir "/block." n ".doc"); next
      }
      inside && /^```$/ { inside = 0; close(file); next }
      inside { print > file }
      { armed = 0 }
      END { print n }' "$doc")
  done
  echo "$n"
}
missing_tool() {
  local tool
  for tool in node python3.11; do
    if grep -qw "$tool" "$1" && ! command -v "$tool" >/dev/null; then
      echo "$tool"
      return
    fi
  done
}
