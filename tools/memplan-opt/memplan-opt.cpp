//===- memplan-opt.cpp - The memplan optimizer driver ---------------------===//
//
// Part of memplan. An mlir-opt with every upstream dialect and pass plus
// memplan's dialect, passes and test passes; a crash while parsing the
// input exits 1 after its stack dump (below).
//
//===----------------------------------------------------------------------===//

#include "memplan/Conversion/Passes.h"
#include "memplan/IR/MemplanDialect.h"
#include "memplan/Pipelines/Pipelines.h"
#include "memplan/Transforms/Passes.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace mlir {
namespace memplan {
void registerTestPrintLifetimesPass();
void registerTestPrintRematPass();
} // namespace memplan
} // namespace mlir

/// The deepest bracket nesting ((, [, {, <) memplan-opt hands to MLIR's
/// parser, which recurses once per level: on the 8 MiB main stack 2500
/// nested regions (about 5000 levels) or 10000 nested `[` overflowed it, a
/// silent SIGSEGV. Real programs nest a few dozen levels.
constexpr unsigned kMaxNesting = 1000;

/// The offset in `text` where brackets first nest deeper than kMaxNesting,
/// outside string literals and `//` comments (a `>` of `->` or `>=` also
/// closes a level: the depth is never overstated), or npos.
static size_t tooDeeplyNested(llvm::StringRef text) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && text.substr(i, 2) == "//") {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNesting)
        return i;
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth) {
      --depth;
    }
  }
  return llvm::StringRef::npos;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  mlir::memplan::registerMemplanPasses();
  mlir::memplan::registerMemplanConversionPasses();
  mlir::memplan::registerMemplanPipelines();
  mlir::memplan::registerTestPrintLifetimesPass();
  mlir::memplan::registerTestPrintRematPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::memplan::MemplanDialect>();

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "memplan optimizer driver: static memory planning passes\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();

  // Listings read no input (MlirOptMain prints them and returns).
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(reading the input from stdin; ctrl-d ends it)\n";
  std::string errorMessage;
  auto input = mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  // Text only: bytecode holds no brackets to count.
  if (!mlir::isBytecode(input->getMemBufferRef())) {
    llvm::StringRef text = input->getBuffer();
    size_t at = tooDeeplyNested(text);
    if (at != llvm::StringRef::npos) {
      llvm::SourceMgr sources;
      sources.AddNewSourceBuffer(
          llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(), false),
          llvm::SMLoc());
      auto [line, column] = sources.getLineAndColumn(
          llvm::SMLoc::getFromPointer(text.data() + at));
      llvm::errs() << inputFilename << ":" << line << ":" << column
                   << ": error: brackets nest deeper than " << kMaxNesting
                   << " levels here; memplan-opt refuses the input (MLIR's "
                      "parser recurses once per level)\n";
      return 1;
    }
  }
  auto output = mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }

  // MLIR's parser (libMLIR, not memplan) can crash on some malformed inputs
  // after it has reported them with a location: linalg.reduce with a
  // `dimensions` value past int64, for one, in LLVM 22. Until the pass
  // pipeline is set up (MlirOptMain does that once the input is parsed and
  // verified), a crash on this thread ends in the stack dump, a line naming
  // the crash and exit 1 rather than the signal: the input's error stays
  // the last word, and the dump still says where (memplan's own attribute
  // parsers and verifiers run in that phase too, so the crash is not
  // hidden). From then on a crash dies of its signal, as any other does.
  // Every chunk of --split-input-file is covered until the first one that
  // parses. A stack overflow in the parser is not caught (the recovery
  // handlers do not run on an alternate stack).
  mlir::MlirOptMainConfig base = config;
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  recovery.DumpStackAndCleanupOnFailure = true;
  bool parsed = false;
  config.setPassPipelineSetupFn([&](mlir::PassManager &pm) {
    parsed = true;
    return base.setupPassPipeline(pm);
  });
  mlir::LogicalResult result = mlir::failure();
  if (!recovery.RunSafely([&] {
        result =
            mlir::MlirOptMain(output->os(), std::move(input), registry, config);
      })) {
    llvm::CrashRecoveryContext::Disable();
    const int code = recovery.RetCode;
    if (parsed || !llvm::CrashRecoveryContext::isCrash(code)) {
      llvm::CrashRecoveryContext::throwIfCrash(code);
      return code ? code : 1;
    }
    llvm::errs() << inputFilename
                 << ": error: memplan-opt crashed while parsing this input "
                    "(the stack dump above says where; libMLIR's own "
                    "parsers crash on some inputs after reporting them). "
                    "Nothing was written.\n";
    return 1;
  }
  llvm::CrashRecoveryContext::Disable();
  if (mlir::failed(result))
    return 1;
  output->keep();
  return 0;
}
