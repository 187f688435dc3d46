// The workbench's pool for long jobs: compiles, GPU runs, tuning sweeps. Not
// Qt's global pool, which the raster paint engine also draws with: jobs
// that hold its threads (two on a 2-core machine) made painting wait for
// them, and a thread blocked waiting for a layout while the window painted
// deadlocked the window (issue 46). Nothing here waits on another task.
#pragma once

#include <QThreadPool>

namespace fuserlab::gui {

//! One pool for the process, as many threads as cores (at least two).
QThreadPool* backgroundJobs();

}  // namespace fuserlab::gui
