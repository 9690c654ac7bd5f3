#!/usr/bin/env bash
# -o naming a FIFO streams into it (issue 15, item 1): with a reader on the
# FIFO, copy, aslr, jit and cs-etm-decode (perf.data and text) exit 0, the
# FIFO is still a FIFO, and the reader got what -o REGULAR_FILE holds (for
# perf.data: in the pipe layout, as -o -, and perf script prints the same
# for both).
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
prepare_writers 200
mkfifo out.fifo

# perf script of a recording, the device and inode of MMAP2s masked: the
# second jit run replaces the .so files of the first whole (new inodes).
script_without_inodes() {
  script_of "$1" | sed -E 's/ [0-9a-f]+:[0-9a-f]+ [0-9]+ [0-9]+\]:/ DEV INO GEN]:/'
}

# same_output NAME GOT REGULAR: the bytes a consumer sees are the same.
same_output() {
  if is_text_writer "$1"; then
    [ -s "$3" ] && cmp -s "$2" "$3"
  else
    script_without_inodes "$3" >"$3.script" && script_without_inodes "$2" >"$2.script" &&
      [ -s "$3.script" ] && cmp -s "$2.script" "$3.script"
  fi
}

# pipe_layout FILE: a perf.data header of 16 bytes (magic, size), not 104.
pipe_layout() { [ "$(od -An -tu8 -j8 -N8 "$1" 2>/dev/null | tr -d ' ')" = 16 ]; }

for name in "${WRITER_NAMES[@]}"; do
  read -ra args <<<"${WRITERS[$name]}"
  "$PERFTK" "${args[@]}" -o "$name.regular" || fail "$name -o $name.regular failed"
  cat out.fifo >"$name.got" &
  reader=$!
  run "$PERFTK" "${args[@]}" -o out.fifo
  wait_or_kill $reader 5
  check "$name -o FIFO: exit 0 (got $rc: $(last_error))" test "$rc" = 0
  check "$name -o FIFO: still a FIFO" test -p out.fifo
  check "$name -o FIFO: the reader got the output ($(stat -c %s "$name.got") bytes)" \
    same_output "$name" "$name.got" "$name.regular"
  is_text_writer "$name" || check "$name -o FIFO: the pipe layout" pipe_layout "$name.got"
  check "$name: no temporary file left" no_temps_in .
  [ -p out.fifo ] || { rm -f out.fifo; mkfifo out.fifo; }
done
checks_summary
