#include "jitdump_builder.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace perftk::jit::testing {

JitDumpBuilder::JitDumpBuilder(uint32_t pid, Endian endian, uint64_t flags, uint32_t elf_mach)
    : endian_(endian) {
  Put(4, 0x4A695444);  // "JiTD"
  Put(4, 1);           // version
  Put(4, 40);          // header size
  Put(4, elf_mach);
  Put(4, 0);  // pad1
  Put(4, pid);
  Put(8, 123456789);  // timestamp
  Put(8, flags);
}

void JitDumpBuilder::Put(int width, uint64_t value) {
  for (int i = 0; i < width; ++i) {
    int shift = endian_ == Endian::kLittle ? 8 * i : 8 * (width - 1 - i);
    bytes_.push_back(static_cast<std::byte>((value >> shift) & 0xff));
  }
}

void JitDumpBuilder::PutBytes(const void* data, size_t n) {
  const std::byte* p = static_cast<const std::byte*>(data);
  bytes_.insert(bytes_.end(), p, p + n);
}

void JitDumpBuilder::BeginRecord(uint32_t id, uint64_t timestamp) {
  last_record_ = bytes_.size();
  Put(4, id);
  Put(4, 0);  // size, set by EndRecord
  Put(8, timestamp);
}

void JitDumpBuilder::EndRecord() { Patch32(last_record_ + 4, bytes_.size() - last_record_); }

void JitDumpBuilder::Patch32(size_t offset, uint32_t value) {
  std::vector<std::byte> saved(bytes_.begin() + offset + 4, bytes_.end());
  bytes_.resize(offset);
  Put(4, value);
  bytes_.insert(bytes_.end(), saved.begin(), saved.end());
}

void JitDumpBuilder::Patch64(size_t offset, uint64_t value) {
  std::vector<std::byte> saved(bytes_.begin() + offset + 8, bytes_.end());
  bytes_.resize(offset);
  Put(8, value);
  bytes_.insert(bytes_.end(), saved.begin(), saved.end());
}

JitDumpBuilder& JitDumpBuilder::Load(const LoadFields& f) {
  BeginRecord(0, f.timestamp);
  Put(4, f.pid);
  Put(4, f.tid);
  Put(8, f.code_addr);  // vma
  Put(8, f.code_addr);
  Put(8, f.code.size());
  Put(8, f.code_index);
  PutBytes(f.name.c_str(), f.name.size() + 1);
  PutBytes(f.code.data(), f.code.size());
  EndRecord();
  return *this;
}

JitDumpBuilder& JitDumpBuilder::Move(const MoveFields& f) {
  BeginRecord(1, f.timestamp);
  Put(4, f.pid);
  Put(4, f.tid);
  Put(8, f.new_code_addr);  // vma
  Put(8, f.old_code_addr);
  Put(8, f.new_code_addr);
  Put(8, f.code_size);
  Put(8, f.code_index);
  EndRecord();
  return *this;
}

JitDumpBuilder& JitDumpBuilder::Debug(uint64_t timestamp, uint64_t code_addr,
                                      const std::vector<LineFields>& lines) {
  BeginRecord(2, timestamp);
  Put(8, code_addr);
  Put(8, lines.size());
  for (const LineFields& line : lines) {
    Put(8, line.addr);
    Put(4, line.line);
    Put(4, line.discrim);
    PutBytes(line.file.c_str(), line.file.size() + 1);
  }
  while (bytes_.size() % 8 != 0) bytes_.push_back(std::byte{0});
  EndRecord();
  return *this;
}

JitDumpBuilder& JitDumpBuilder::Unwinding(uint64_t timestamp, const std::vector<uint8_t>& eh_frame,
                                          const std::vector<uint8_t>& eh_frame_hdr,
                                          uint64_t mapped_size) {
  BeginRecord(4, timestamp);
  Put(8, eh_frame.size() + eh_frame_hdr.size());
  Put(8, eh_frame_hdr.size());
  Put(8, mapped_size);
  PutBytes(eh_frame.data(), eh_frame.size());
  PutBytes(eh_frame_hdr.data(), eh_frame_hdr.size());
  EndRecord();
  return *this;
}

JitDumpBuilder& JitDumpBuilder::Close(uint64_t timestamp) {
  BeginRecord(3, timestamp);
  EndRecord();
  return *this;
}

JitDumpBuilder& JitDumpBuilder::Raw(uint32_t id, uint64_t timestamp,
                                    const std::vector<uint8_t>& payload) {
  BeginRecord(id, timestamp);
  PutBytes(payload.data(), payload.size());
  EndRecord();
  return *this;
}

JitDumpBuilder& JitDumpBuilder::LastRecordSize(uint32_t total_size) {
  Patch32(last_record_ + 4, total_size);
  return *this;
}

void JitDumpBuilder::WriteTo(const std::string& path, size_t limit) const {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot create " + path);
  size_t n = std::min(limit, bytes_.size());
  if (std::fwrite(bytes_.data(), 1, n, f) != n) throw std::runtime_error("short write " + path);
  std::fclose(f);
}

}  // namespace perftk::jit::testing
