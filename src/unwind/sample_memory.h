// The memory one sample's unwinding can read: the copy of the user stack the
// sample carries (PERF_SAMPLE_STACK_USER, starting at the stack pointer) and
// the files mapped in the sample's process, read where their mappings put
// them. Nothing else: other memory was not recorded, so a read of it fails.
#ifndef PERFTK_UNWIND_SAMPLE_MEMORY_H_
#define PERFTK_UNWIND_SAMPLE_MEMORY_H_

#include <cstdint>

#include "base/bytes.h"
#include "machine/maps.h"
#include "unwind/module_files.h"

namespace perftk::unwind {

class SampleMemory {
 public:
  // `stack` is the valid part of the copy (dyn_size bytes) taken at `sp`;
  // `maps` is the process's address space (may be null). Both must outlive
  // this object.
  SampleMemory(uint64_t sp, base::Bytes stack, const machine::Maps* maps, ModuleFiles& files);

  // The 8 bytes at addr; false if neither the stack copy nor a mapped file
  // holds all of them.
  bool Read(uint64_t addr, uint64_t& word);
  // Read without noting a failure (read_past_stack, read_failed).
  bool Peek(uint64_t addr, uint64_t& word);
  // Notes a failed read of addr, as Read does.
  void NoteFailedRead(uint64_t addr);

  // Whether a read failed at or above the stack pointer outside any file
  // mapping: the stack the unwinder wanted went past the copy.
  bool read_past_stack() const { return read_past_stack_; }
  // Whether any read failed. libdw takes a return address it cannot read
  // for the end of the stack, so a "complete" unwinding that needed memory
  // it could not read was cut short.
  bool read_failed() const { return read_failed_; }

 private:
  bool ReadMappedFile(uint64_t addr, uint64_t& word);

  uint64_t sp_;
  base::Bytes stack_;
  const machine::Maps* maps_;
  ModuleFiles& files_;
  machine::MapsCache cache_;
  bool read_past_stack_ = false;
  bool read_failed_ = false;
};

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_SAMPLE_MEMORY_H_
