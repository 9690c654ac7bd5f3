#include "machine/dso.h"

#include <utility>

namespace perftk::machine {

const Dso* DsoTable::Intern(absl::string_view name, const base::BuildId& build_id,
                            const FileId& file_id, bool kernel_space) {
  Key key(std::string(name), build_id, file_id, kernel_space);
  auto [it, inserted] = dsos_.try_emplace(std::move(key));
  if (inserted) {
    it->second =
        std::make_unique<const Dso>(Dso{std::string(name), build_id, file_id, kernel_space});
  }
  return it->second.get();
}

}  // namespace perftk::machine
