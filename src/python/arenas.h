// pymalloc's arenas from regions advised for transparent huge pages (docs/design/python.md
// "Memory for Python objects").
#pragma once

#include <pybind11/pybind11.h>

namespace tarn::python {

// Makes every later pymalloc arena come from 2 MiB-aligned regions advised MADV_HUGEPAGE, so
// the memory of the Python objects a scan makes is faulted in 2 MiB at a time instead of 4 KiB
// (those faults were half of a scan's time into pandas, bench/README.md). Arenas made before
// are freed by the allocator that made them. Freed arenas are reused; emptied regions are kept
// for reuse (advised MADV_FREE) up to TARN_PYTHON_HUGE_ARENAS_KEEP MiB (512 by default; a value
// that is not a whole number from 0 to 1048576 keeps the default), and unmapped beyond. Idempotent;
// called with the GIL held, before a conversion makes objects. TARN_PYTHON_HUGE_ARENAS=0 in the
// environment leaves pymalloc as it is.
void UseHugePageArenas();

// (installed, regions mapped, arenas made, arenas freed, emptied regions kept, regions
// unmapped) for tests.
pybind11::tuple HugePageArenaStats();

}  // namespace tarn::python
