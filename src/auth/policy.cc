// Roles and name patterns: what a verified principal may do (docs/design/serve.md "Access
// control").
#include <string>

#include "auth/auth.h"
#include "auth/auth_internal.h"

namespace tarn::auth {

namespace internal {

PatternParts SplitPattern(std::string_view pattern) {
  size_t dot = pattern.find('.');
  if (dot == std::string_view::npos) return {pattern, "*"};
  return {pattern.substr(0, dot), pattern.substr(dot + 1)};
}

}  // namespace internal

bool GlobMatch(std::string_view pattern, std::string_view name) {
  // Iterative matcher with one backtrack point (the last '*'): linear in practice, never
  // exponential.
  size_t p = 0, n = 0;
  size_t star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

// Why `p` may not act; empty when it may.
std::string_view Refusal(const Principal& p, Role needed, std::string_view workspace,
                         std::string_view target) {
  if (p.role < needed) return "role";
  if (workspace.empty()) return "workspace";
  if (p.workspace != "*" && (workspace == "*" || p.workspace != workspace)) return "workspace";
  internal::PatternParts pat = internal::SplitPattern(p.pattern);
  bool whole_workspace = pat.collection == "*" && pat.dataset == "*";
  if (target.empty()) {
    // Reading a workspace is open to any token of it (listings are filtered); changing it
    // needs the whole workspace.
    return needed == Role::kReader || whole_workspace ? "" : "pattern";
  }
  size_t dot = target.find('.');
  std::string_view coll = target.substr(0, dot);
  if (!GlobMatch(pat.collection, coll)) return "pattern";
  if (dot == std::string_view::npos) {
    // A collection: reading needs its name to match; changing it needs every dataset in it.
    return needed == Role::kReader || pat.dataset == "*" ? "" : "pattern";
  }
  return GlobMatch(pat.dataset, target.substr(dot + 1)) ? "" : "pattern";
}

}  // namespace

Status Authorize(const Principal& p, Role needed, std::string_view workspace,
                 std::string_view target) {
  std::string_view why = Refusal(p, needed, workspace, target);
  if (why.empty()) return Status::OK();
  std::string what = target.empty()
                         ? "workspace '" + std::string(workspace) + "'"
                         : "'" + std::string(workspace) + "." + std::string(target) + "'";
  std::string message;
  if (why == "role") {
    message = "this token's role is " + std::string(RoleName(p.role)) + "; " + what + " needs " +
              std::string(RoleName(needed));
  } else if (why == "workspace") {
    message = "this token is for workspace '" + p.workspace + "', not " + what;
  } else {
    message = "this token's pattern '" + p.pattern + "' does not cover " + what + " as " +
              std::string(RoleName(needed));
  }
  return Status::Of(codes::kPermissionDenied, std::move(message))
      .WithField("needed_role", std::string(RoleName(needed)))
      .WithField("workspace", std::string(workspace))
      .WithField("target", std::string(target));
}

bool MayAccess(const Principal& p, Role needed, std::string_view workspace,
               std::string_view target) {
  return Refusal(p, needed, workspace, target).empty();
}

Status AuthorizeGrant(const Principal& p, const AccessTokenSpec& spec) {
  std::string_view ws = spec.workspace;
  auto deny = [&](std::string message) {
    return Status::Of(codes::kPermissionDenied, std::move(message))
        .WithField("needed_role", std::string(RoleName(Role::kOwner)))
        .WithField("workspace", std::string(ws))
        .WithField("target", "");
  };
  if (p.role != Role::kOwner) {
    return deny("creating tokens needs the owner role; this token's role is " +
                std::string(RoleName(p.role)));
  }
  if (p.workspace != "*" && p.workspace != ws) {
    return deny("this token is for workspace '" + p.workspace + "', not '" + std::string(ws) + "'");
  }
  if (spec.role > p.role) return deny("a token cannot grant a role above its own");
  internal::PatternParts mine = internal::SplitPattern(p.pattern);
  internal::PatternParts theirs = internal::SplitPattern(spec.pattern);
  bool covered = (mine.collection == "*" || mine.collection == theirs.collection) &&
                 (mine.dataset == "*" || mine.dataset == theirs.dataset);
  if (!covered) return deny("a token cannot grant a pattern wider than its own");
  return Status::OK();
}

}  // namespace tarn::auth
