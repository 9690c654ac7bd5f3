#include "unwind/sample_memory.h"

#include <cstring>

namespace perftk::unwind {

SampleMemory::SampleMemory(uint64_t sp, base::Bytes stack, const machine::Maps* maps,
                           ModuleFiles& files)
    : sp_(sp), stack_(stack), maps_(maps), files_(files) {}

bool SampleMemory::Read(uint64_t addr, uint64_t& word) {
  if (Peek(addr, word)) return true;
  NoteFailedRead(addr);
  return false;
}

bool SampleMemory::Peek(uint64_t addr, uint64_t& word) {
  if (addr >= sp_ && addr - sp_ <= stack_.size() && stack_.size() - (addr - sp_) >= sizeof word) {
    std::memcpy(&word, stack_.data() + (addr - sp_), sizeof word);
    return true;
  }
  return ReadMappedFile(addr, word);
}

void SampleMemory::NoteFailedRead(uint64_t addr) {
  if (addr >= sp_) read_past_stack_ = true;
  read_failed_ = true;
}

bool SampleMemory::ReadMappedFile(uint64_t addr, uint64_t& word) {
  if (maps_ == nullptr) return false;
  std::optional<machine::Map> map = maps_->Find(addr, cache_);
  if (!map || map->IsIdentity() || map->dso == nullptr) return false;
  if (map->end - addr < sizeof word) return false;
  const ModuleFile* file = files_.Find(map->dso);
  return file != nullptr && file->ReadWord(map->DsoAddress(addr), word);
}

}  // namespace perftk::unwind
