//===- ReportInternal.h - Shared by the report writers ----------*- C++ -*-===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_LIB_PLANNING_REPORTINTERNAL_H
#define MEMPLAN_LIB_PLANNING_REPORTINTERNAL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace mlir::memplan::detail {

/// Opens `path` for writing ("-": stdout), or an error naming it.
llvm::Expected<std::unique_ptr<llvm::raw_fd_ostream>>
openOutput(llvm::StringRef path);

} // namespace mlir::memplan::detail

#endif // MEMPLAN_LIB_PLANNING_REPORTINTERNAL_H
