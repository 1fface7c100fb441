// The error codes of schedules (src/schedule): a cron text that does not parse or never fires,
// and a time zone name that is not a zone of the zone database. Each is the "code" field of a
// Status (Status::Of(codes::kX, message)) and is registered in tarn::ErrorRegistry (tarn/status.h).
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

// A five-field cron text that does not parse, or can never fire (`0 0 30 2 *`); fields: schedule
// (the text as given).
TARN_ERROR_CODE(kInvalidSchedule,
                ErrorCode("invalid_schedule", ErrorKind::kInvalidArgument, "schedule"));
// A time zone name that is malformed or names no zone file; fields: time_zone (the name as given).
TARN_ERROR_CODE(kUnknownTimeZone,
                ErrorCode("unknown_time_zone", ErrorKind::kInvalidArgument, "time_zone"));

}  // namespace tarn::codes
