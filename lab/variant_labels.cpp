// The short names of a comparison's variants (lab/compare.h,
// variant_labels).
#include <filesystem>
#include <map>

#include "base/json.h"
#include "lab/compare.h"

namespace tapir {

namespace {

// One comma-separated item of a variant's name, shortened.
std::string short_item(const std::string& item) {
  if (item.rfind("arch:", 0) != 0 || item.rfind("arch: ", 0) == 0) return item;
  const std::filesystem::path file = item.substr(5);
  const std::string folder = file.parent_path().filename().string();
  const std::string stem = file.stem().string();
  if (folder.rfind("search-", 0) == 0 && folder.size() > 7 &&
      folder.find_first_not_of("0123456789", 7) == std::string::npos)
    return "search " + folder.substr(7);
  if (!stem.empty() && stem != "arch") return stem;
  return folder.empty() ? item : folder;
}

std::string short_name(const std::string& name) {
  // "arch: 3 searches": the searches pooled (pool_arch_files).
  const std::string pooled = "arch: ";
  if (name.rfind(pooled, 0) == 0) return name.substr(pooled.size()) + " pooled";
  std::string out;
  size_t start = 0;
  while (true) {
    const size_t comma = name.find(',', start);
    out += short_item(name.substr(start, comma - start));
    if (comma == std::string::npos) break;
    out += ',';
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::vector<std::string> variant_labels(const std::vector<VariantResult>& results) {
  std::vector<std::string> labels;
  std::map<std::string, std::string> first_name;  // short name -> the first full name with it
  std::map<std::string, bool> clash;
  for (const VariantResult& r : results) {
    labels.push_back(short_name(r.variant.name));
    const auto [at, fresh] = first_name.emplace(labels.back(), r.variant.name);
    if (!fresh && at->second != r.variant.name) clash[labels.back()] = true;
  }
  for (size_t i = 0; i < labels.size(); ++i)
    if (clash.count(labels[i])) labels[i] = results[i].variant.name;
  return labels;
}

const std::string& shown_variant(const Json& entry) {
  const Json* label = entry.find("label");
  return (label != nullptr ? *label : entry.at("variant")).as_string();
}

}  // namespace tapir
