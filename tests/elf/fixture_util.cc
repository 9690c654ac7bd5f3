#include "fixture_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace perftk::elf::testing {

std::string RunShell(const std::string& command, int* status) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    if (status != nullptr) *status = -1;
    return output;
  }
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, got);
  const int raw = pclose(pipe);
  if (status != nullptr) *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return output;
}

namespace {

std::string BuildFixtures() {
  char dir_template[] = "/tmp/perftk-elf-fixtures-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return "";
  static std::string removal;
  removal = std::string("rm -rf ") + dir;
  std::atexit([] { std::system(removal.c_str()); });
  int status = 0;
  const std::string log = RunShell(
      std::string("bash " PERFTK_SOURCE_DIR "/tests/elf/fixtures/build.sh ") + dir + " 2>&1",
      &status);
  if (status != 0) {
    ADD_FAILURE() << "building the fixtures failed:\n" << log;
    return "";
  }
  return dir;
}

}  // namespace

const std::string& FixtureDir() {
  static const std::string dir = BuildFixtures();
  return dir;
}

std::string MissingReason(const std::string& name) {
  std::ifstream in(FixtureDir() + "/missing.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + " ", 0) == 0) return line.substr(name.size() + 1);
  }
  return "";
}

namespace {

// One "0000000000001139 <global_fn> (File Offset: 0x1139):" line, or false.
bool ParseLabelLine(const std::string& line, std::string* label, uint64_t* offset) {
  static constexpr char kMiddle[] = "> (File Offset: 0x";
  const size_t open = line.find(" <");
  if (open == 0 || open == std::string::npos) return false;
  if (line.find_first_not_of("0123456789abcdef") != open) return false;
  const size_t middle = line.rfind(kMiddle);
  if (middle == std::string::npos || middle <= open + 2 || line.size() < 2 ||
      line.compare(line.size() - 2, 2, "):") != 0) {
    return false;
  }
  const size_t hex = middle + sizeof(kMiddle) - 1;
  const std::string digits = line.substr(hex, line.size() - 2 - hex);
  if (digits.empty() || digits.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return false;
  }
  *label = line.substr(open + 2, middle - open - 2);
  *offset = std::stoull(digits, nullptr, 16);
  return true;
}

}  // namespace

std::map<std::string, std::vector<uint64_t>> ObjdumpLabels(const std::string& objdump,
                                                           const std::string& file) {
  std::map<std::string, std::vector<uint64_t>> labels;
  std::istringstream text(RunShell(objdump + " -dF '" + file + "' 2>/dev/null"));
  std::string line;
  std::string label;
  uint64_t offset = 0;
  while (std::getline(text, line)) {
    if (ParseLabelLine(line, &label, &offset)) labels[label].push_back(offset);
  }
  return labels;
}

}  // namespace perftk::elf::testing
