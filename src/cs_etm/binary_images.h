// The program images the decoder reads instructions from: the files behind
// the Dsos of the machine model, found by path (under --symfs DIR when given,
// first as DIR/<recorded path>, then as DIR/<file name>), and checked against
// the build id the recording gives for them (the MMAP2 build id, or the
// BUILD_ID feature's), compared as perf compares them (elf/build_id.h: a
// short id, such as a kernel module's 8 bytes, recorded zero-padded matches
// its short ELF note).
//
// A Dso whose file is missing, unreadable or has another build id has no
// image: Find returns null and a warning naming it is kept (once per Dso);
// the decoder then skips the code there, as it does for the kernel when no
// image is given. Images are mapped read-only and live as long as this
// object. Thread-safe: a thread answers the Dsos it asked for lately from a
// cache of its own, without a lock; a file is found, parsed and mapped
// outside the lock.
#ifndef PERFTK_CS_ETM_BINARY_IMAGES_H_
#define PERFTK_CS_ETM_BINARY_IMAGES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "machine/dso.h"
#include "base/bytes.h"

namespace perftk::cs_etm {

struct Image {
  std::string path;  // where the file was found
  Bytes bytes;       // the whole file
};

class BinaryImages {
 public:
  // `build_ids`: recorded file name -> raw build id bytes (BUILD_ID feature).
  BinaryImages(std::string symfs, std::map<std::string, std::string> build_ids);
  ~BinaryImages();
  BinaryImages(const BinaryImages&) = delete;
  BinaryImages& operator=(const BinaryImages&) = delete;

  const Image* Find(const machine::Dso& dso);
  // Warnings since the last call, one line each.
  std::vector<std::string> TakeWarnings();

 private:
  struct Mapped;
  const Image* FindShared(const machine::Dso& dso);
  // The Dso's file, found, checked and mapped; null with `warning` set.
  std::unique_ptr<Mapped> Load(const machine::Dso& dso, std::string& warning) const;
  std::string ExpectedBuildId(const machine::Dso& dso) const;

  const std::string symfs_;
  const std::map<std::string, std::string> build_ids_;
  const uint64_t id_;  // names this table in the threads' caches
  std::mutex mu_;
  absl::flat_hash_map<const machine::Dso*, const Image*> by_dso_;
  std::vector<std::unique_ptr<Mapped>> mapped_;
  std::vector<std::string> warnings_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_BINARY_IMAGES_H_
