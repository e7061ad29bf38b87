#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace phasecheck {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  // Three rows of the dynamic program: i - 2, i - 1, i.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1,
                         previous[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& known) {
  if (word.empty()) return std::nullopt;
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& name : known) {
    const std::size_t d = edit_distance(word, name);
    if (d <= 2 && 2 * d < word.size() && (!best || d < best_distance)) {
      best = name;
      best_distance = d;
    }
  }
  if (best) return best;
  std::optional<std::string> prefixed;  // "hier" for "hierarchical-factor", if it is the only one
  for (const std::string& name : known)
    if (name.size() > word.size() && edit_distance(word, name.substr(0, word.size())) == 0) {
      if (prefixed) return std::nullopt;
      prefixed = name;
    }
  return prefixed;
}

std::string unknown_name(std::string_view what, std::string_view word,
                         const std::vector<std::string>& known) {
  std::string out = "unknown " + std::string(what) + " '" + std::string(word) + "'";
  if (const auto guess = closest(word, known)) out += "; did you mean '" + *guess + "'?";
  out += " (known: ";
  for (std::size_t i = 0; i < known.size(); ++i) out += (i ? ", " : "") + known[i];
  return out + ")";
}

}  // namespace phasecheck
