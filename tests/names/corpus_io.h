// Reads tests/names/corpus.tsv (mangled \t llvm-cxxfilt-19 output \t GNU c++filt demangles it).
#pragma once
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

struct CorpusRow {
  std::string mangled, expected;
  bool gnu_demangles;
};

inline std::vector<CorpusRow> load_corpus() {
  std::ifstream in(ROCPD_NAMES_CORPUS);
  if (!in) throw std::runtime_error("cannot open " ROCPD_NAMES_CORPUS);
  std::vector<CorpusRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto a = line.find('\t'), b = line.rfind('\t');
    if (a == std::string::npos || a == b) throw std::runtime_error("bad corpus line: " + line);
    rows.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1) == "1"});
  }
  return rows;
}
