// The task value functions (tarn/task.h).
#include "tarn/task.h"

#include "sdk/error_codes.h"
#include "tarn/dataset.h"

namespace tarn {

namespace {

Status Invalid(const std::string& field, const std::string& message) {
  return Status::Of(codes::kInvalidTask, message).WithField("field", field);
}

}  // namespace

Status ValidateTaskDefinition(const TaskDefinition& def) {
  ViewDefinition sql;
  sql.sql = def.sql;
  sql.dialect = def.dialect;
  sql.description = def.description;
  TARN_RETURN_NOT_OK(ValidateViewDefinition(sql));
  if (def.target.empty()) return Invalid("target", "a task needs the dataset it writes (target)");
  if (auto t = ParseDatasetName(def.target); !t.ok()) {
    return Invalid("target", "a task's target: " + t.status().message());
  }
  if (def.mode != kTaskAppend && def.mode != kTaskOverwrite) {
    return Invalid("mode", "a task appends or overwrites, not '" + def.mode.substr(0, 40) + "'");
  }
  const bool commit = def.trigger == kTaskTriggerCommit;
  const bool schedule = def.trigger == kTaskTriggerSchedule;
  if (!commit && !schedule && def.trigger != kTaskTriggerSignal) {
    return Invalid("trigger", "a task's trigger is commit, schedule or signal, not '" +
                                  def.trigger.substr(0, 40) + "'");
  }
  if (commit != !def.on.empty()) {
    return commit ? Invalid("on", "a commit trigger needs the dataset whose commits fire it (on)")
                  : Invalid("on", "only a commit trigger names a dataset to fire on (on)");
  }
  if (commit) {
    if (auto on = ParseDatasetName(def.on); !on.ok()) {
      return Invalid("on", "a task's trigger source: " + on.status().message());
    }
  }
  if (schedule != !def.schedule.empty()) {
    return schedule ? Invalid("schedule", "a schedule trigger needs a cron schedule")
                    : Invalid("schedule", "only a schedule trigger has a cron schedule");
  }
  if (!schedule && !def.time_zone.empty()) {
    return Invalid("time_zone", "only a schedule trigger has a time zone");
  }
  if (def.schedule.size() > 200 || def.time_zone.size() > 255) {
    return Invalid(def.schedule.size() > 200 ? "schedule" : "time_zone", "too long");
  }
  if (!def.window_source.empty()) {
    if (auto w = ParseDatasetName(def.window_source); !w.ok()) {
      return Invalid("window_source", "a task's window source: " + w.status().message());
    }
  }
  if (def.runs_as.size() > 200) return Invalid("runs_as", "runs_as is longer than 200 bytes");
  for (unsigned char c : def.runs_as) {
    if (c < 0x21 || c == 0x7f) return Invalid("runs_as", "runs_as has a space or control byte");
  }
  return Status::OK();
}

}  // namespace tarn
