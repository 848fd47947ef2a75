#include "log_warnings.h"

#include <sqlite3.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "text_clean.h"

namespace rocpd_cli {

namespace {
constexpr std::string_view kCachePrefix = "rocpd conversion cache: ";

// Any thread may log (members convert on the probing threads): one line at a time.
void on_log(void*, int code, const char* message) {
  if (code != SQLITE_WARNING || !message) return;
  const std::string_view m(message);
  if (m.substr(0, kCachePrefix.size()) != kCachePrefix) return;
  const std::string line = "rocpd-ext: warning: conversion cache: " + terminal_text(m.substr(kCachePrefix.size())) + "\n";
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::fputs(line.c_str(), stderr);
}
}  // namespace

void show_extension_warnings() { sqlite3_config(SQLITE_CONFIG_LOG, on_log, nullptr); }

}  // namespace rocpd_cli
