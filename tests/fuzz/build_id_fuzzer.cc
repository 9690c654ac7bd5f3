// libFuzzer target: any bytes as a recording through the build-id tool
// (perftk copy --buildid-all), written to /dev/null. The names a recording
// gives lead to files: --symfs is a folder of the fuzzer's own with a FIFO,
// a link to /dev/zero and a folder in it, so a mutated name that reaches
// them must be refused, never block or read without bound. /sys is another
// such folder (module notes that are a FIFO, /dev/zero, an over-long file),
// but module notes are read only for a recording that claims this
// machine's host name and kernel release, which a mutated seed rarely does:
// build_ids/build_id_tool_test.cc and shell.safety_recorded_module_names cover
// those. Seeded with tests/data. Errors are fine; crashes, sanitizer
// reports, hangs, aborts and memory past run.sh's -rss_limit_mb are not
// (issue 30's D1 and D8 lived here).
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/warnings.h"
#include "build_ids/build_id_tool.h"
#include "fuzz_file.h"
#include "pipeline/pipeline.h"

namespace {

// A folder with a FIFO, /dev/zero and a folder where files could be looked
// up: bin/fifo, bin/zero, bin/dir; module/{fifo,zero,big}/notes/...
std::string MakeTraps() {
  char pattern[] = "/tmp/perftk-build-id-fuzz.XXXXXX";
  const char* dir = mkdtemp(pattern);
  if (dir == nullptr) std::abort();
  const std::filesystem::path root(dir);
  static std::string removed_at_exit;
  removed_at_exit = root.string();
  std::atexit([] {
    std::error_code ignored;
    std::filesystem::remove_all(removed_at_exit, ignored);
  });
  std::filesystem::create_directories(root / "bin" / "dir");
  mkfifo((root / "bin" / "fifo").c_str(), 0600);
  std::filesystem::create_symlink("/dev/zero", root / "bin" / "zero");
  for (const char* module : {"fifo", "zero", "big"}) {
    std::filesystem::create_directories(root / "sys" / "module" / module / "notes");
  }
  std::filesystem::create_directories(root / "sys" / "kernel");
  mkfifo((root / "sys" / "module" / "fifo" / "notes" / ".note.gnu.build-id").c_str(), 0600);
  std::filesystem::create_symlink(
      "/dev/zero", root / "sys" / "module" / "zero" / "notes" / ".note.gnu.build-id");
  std::ofstream(root / "sys" / "module" / "big" / "notes" / ".note.gnu.build-id")
      << std::string(2 << 20, 'x');
  mkfifo((root / "sys" / "kernel" / "notes").c_str(), 0600);
  return root.string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string traps = MakeTraps();
  const std::string input = perftk::fuzz::AsFile(data, size);
  if (input.empty()) return 0;
  for (const char* symfs : {"", "/bin"}) {
    perftk::build_ids::BuildIdSettings settings;
    settings.scope = perftk::build_ids::BuildIdScope::kAll;
    settings.symfs = *symfs == '\0' ? traps : traps + symfs;
    settings.sys_root = traps + "/sys";
    perftk::base::WarningList warnings;
    perftk::build_ids::BuildIdTool tool(settings, warnings);
    perftk::pipeline::PipelineOptions options;
    options.input = input;
    options.output = "/dev/null";
    perftk::base::WarningList reader_warnings;
    (void)perftk::pipeline::RunPipeline(tool, options, reader_warnings);
  }
  return 0;
}
