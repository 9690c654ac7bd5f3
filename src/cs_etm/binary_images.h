// The program images the decoder reads instructions from: the files behind
// the Dsos of the machine model, found as perf finds them: first in perf's
// build-id cache by the recorded build id (elf/build_id_cache.h; the only
// place the vDSO is found), then by path (under --symfs DIR when given,
// first as DIR/<recorded path>, then as DIR/<file name>), and checked against
// the build id the recording gives for them (the MMAP2 build id, or the
// BUILD_ID feature's), compared as perf compares them (BuildId::Matches: a
// short id, such as a kernel module's 8 bytes, recorded zero-padded matches
// its short ELF note).
//
// A Dso whose file is missing (ENOENT), not an ELF file or has another
// build id has no image: Find returns null and a warning naming it is kept
// (once per Dso);
// the decoder then skips the code there, as it does for the kernel when no
// image is given. Images are mapped read-only and live as long as this
// object. A file that could not be looked at for another reason (EMFILE,
// EACCES, EIO), or a FIFO, folder or device where a --symfs or build-id
// cache file belongs, has no image either, and is a failure() that ends
// the run. Thread-safe: a thread answers the Dsos it asked for lately from a
// cache of its own, without a lock; a file is found, parsed and mapped
// outside the lock.
//
// A kernel module (an ET_REL file) carries its text layout (elf/
// module_layout.h): code at module offset X is read from where the kernel
// put it, not from file offset X.
//
// The kernel itself (KernelCode) comes from --kcore (a kcore file, which
// holds the modules too), else --vmlinux, else, when the recording has the
// kernel's build id, a vmlinux with that id found in the build-id cache
// (elf::BuildIdCacheDir(): .build-id/xx/yyyy/elf or .build-id/xx/yyyy)
// and the usual debug paths (/usr/lib/debug/.build-id/xx/yyyy.debug, and for the running
// kernel's release /usr/lib/debug/boot/vmlinux-R, /boot/vmlinux-R,
// /usr/lib/debug/lib/modules/R/vmlinux, /lib/modules/R/build/vmlinux). With
// none, kernel trace is skipped with a warning naming --vmlinux and --kcore.
// With a kcore, a module's code is read from the kcore; its .ko, when found,
// still gives .text's place for the profile (without it, the profile counts
// from the module's base).
#ifndef PERFTK_CS_ETM_BINARY_IMAGES_H_
#define PERFTK_CS_ETM_BINARY_IMAGES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "base/bytes.h"
#include "base/mutex.h"
#include "elf/kernel_image.h"
#include "elf/module_layout.h"
#include "machine/dso.h"
#include "perf/features.h"

namespace perftk::cs_etm {

struct Image {
  std::string path;                         // where the file was found
  base::Bytes bytes;                        // the whole file
  std::optional<elf::ModuleLayout> module;  // an ET_REL kernel module's text
};

// The kernel image's code. Reads are by pread (a kcore cannot be mapped).
struct KernelCode {
  std::string path;
  int fd = -1;
  elf::KernelImage image;
  // Values of the relocation symbols perf and simpleperf name in the
  // kernel MMAP (vmlinux only).
  std::optional<uint64_t> text;   // _text
  std::optional<uint64_t> stext;  // _stext
  ~KernelCode();
  // Reads up to `size` bytes at `address` (of the file's layout).
  uint32_t Read(uint64_t address, uint32_t size, uint8_t* out) const;
};

struct KernelSources {
  std::string vmlinux;  // --vmlinux
  std::string kcore;    // --kcore
};
class BinaryImages {
 public:
  // `build_ids`: recorded file name -> build id (BUILD_ID feature).
  BinaryImages(std::string symfs, perf::BuildIdsByPath build_ids, KernelSources kernel = {});
  ~BinaryImages();
  BinaryImages(const BinaryImages&) = delete;
  BinaryImages& operator=(const BinaryImages&) = delete;

  const Image* Find(const machine::Dso& dso);
  // The kernel's code, `kernel` being the kernel text's Dso; null (with a
  // warning, once) when no image was given or found.
  const KernelCode* Kernel(const machine::Dso& kernel);
  bool has_kcore() const { return !kernel_sources_.kcore.empty(); }
  // Warnings since the last call, one line each.
  std::vector<std::string> TakeWarnings();
  // The first file error that must end the run (see above); OK if none.
  absl::Status failure();

 private:
  struct Mapped;
  const Image* FindShared(const machine::Dso& dso);
  // The Dso's file, found, checked and mapped; null with `warning` set, or
  // with `error` set when the run must end.
  std::unique_ptr<Mapped> Load(const machine::Dso& dso, std::string& warning,
                               absl::Status& error) const;
  // The recorded id as perf prints it (BuildId::Printable).
  base::BuildId ExpectedBuildId(const machine::Dso& dso) const;
  std::unique_ptr<KernelCode> LoadKernel(const machine::Dso& kernel, std::string& warning) const;

  const std::string symfs_;
  const perf::BuildIdsByPath build_ids_;
  const KernelSources kernel_sources_;
  const uint64_t id_;  // names this table in the threads' caches
  base::Mutex mu_;
  absl::flat_hash_map<const machine::Dso*, const Image*> by_dso_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Mapped>> mapped_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> warnings_ ABSL_GUARDED_BY(mu_);
  absl::Status failure_ ABSL_GUARDED_BY(mu_);
  std::once_flag kernel_once_;  // loads kernel_; read without a lock after
  std::unique_ptr<KernelCode> kernel_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_BINARY_IMAGES_H_
