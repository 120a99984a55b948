//===- Passes.h - memplan transformation passes -----------------*- C++ -*-===//
//
// Part of memplan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_TRANSFORMS_PASSES_H
#define MEMPLAN_TRANSFORMS_PASSES_H

#include "memplan/IR/MemplanDialect.h"
#include "memplan/Planning/Packing.h"
#include "memplan/Planning/Remat.h"
#include "memplan/Planning/Symbolic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"

namespace mlir {
namespace memplan {

/// What `policy` (insert-remat, memplan-pipeline) asks for: a Remat.h
/// policy, one of the two solvers, or `auto` (budget with a budget,
/// keep-all without).
enum class RematPolicyChoice {
  Auto,
  KeepAll,
  RecomputeAll,
  EveryN,
  CostThreshold,
  Sqrt,
  Budget,
  Chain,
  Optimal,
};

/// The values of every `policy` option.
llvm::cl::ValuesClass rematPolicyValues();

/// The spelling of a policy choice, as the option takes it.
llvm::StringRef stringifyRematPolicyChoice(RematPolicyChoice choice);

/// The Remat.h policy a choice names; none for auto, chain and optimal.
std::optional<RematPolicy> getRematPolicy(RematPolicyChoice choice);

/// Appends the one bufferization every memplan flow uses (the pipeline and
/// insert-remat's arena check): memplan-bufferize-modules, upstream
/// one-shot-bufferize across function boundaries with identity layouts on
/// every module (nested ones first), so that planned buffers are plain
/// allocations the packer can place.
void buildBufferizeStage(OpPassManager &pm);

#define GEN_PASS_DECL
#include "memplan/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memplan/Transforms/Passes.h.inc"

} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_TRANSFORMS_PASSES_H
