// GlobMatch, Authorize, MayAccess and AuthorizeGrant: roles x patterns x targets.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "auth/auth.h"

namespace tarn::auth {
namespace {

Principal Make(std::string ws, Role role, std::string pattern) {
  Principal p;
  p.client_id = "tarn_x";
  p.workspace = std::move(ws);
  p.role = role;
  p.pattern = std::move(pattern);
  return p;
}

TEST(Glob, Matches) {
  struct Case {
    const char* pattern;
    const char* name;
    bool match;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"*", "", true},
           {"*", "anything.at.all", true},
           {"", "", true},
           {"", "a", false},
           {"a", "a", true},
           {"a", "A", false},
           {"a", "ab", false},
           {"?", "a", true},
           {"?", "", false},
           {"?", "ab", false},
           {"a*", "a", true},
           {"a*", "abc", true},
           {"a*", "ba", false},
           {"*c", "abc", true},
           {"*c", "abd", false},
           {"a*c", "ac", true},
           {"a*c", "abbbc", true},
           {"a*c", "abcd", false},
           {"a*b*c", "axxbyyc", true},
           {"a*b*c", "axxcyyb", false},
           {"sales.*", "sales.orders", true},
           {"sales.*", "salesx.orders", false},
           {"s?les.ord*", "sales.orders", true},
           {"**", "x", true},
           {"*?", "", false},
           {"*?", "x", true},
       }) {
    EXPECT_EQ(GlobMatch(c.pattern, c.name), c.match) << c.pattern << " ~ " << c.name;
  }
  // Pathological patterns stay fast (no exponential backtracking).
  std::string name(5000, 'a');
  std::string pattern;
  for (int i = 0; i < 50; ++i) pattern += "a*";
  pattern += "b";
  EXPECT_FALSE(GlobMatch(pattern, name));
}

TEST(Authorize, RolesOrdered) {
  for (Role have : {Role::kReader, Role::kWriter, Role::kOwner}) {
    Principal p = Make("acme", have, "*");
    for (Role need : {Role::kReader, Role::kWriter, Role::kOwner}) {
      bool expect = static_cast<int>(have) >= static_cast<int>(need);
      EXPECT_EQ(MayAccess(p, need, "acme", "sales.orders"), expect)
          << RoleName(have) << " for " << RoleName(need);
      EXPECT_EQ(Authorize(p, need, "acme", "sales.orders").ok(), expect);
    }
  }
}

TEST(Authorize, Table) {
  struct Case {
    const char* ws;       // the principal's
    Role role;            // the principal's
    const char* pattern;  // the principal's
    Role need;
    const char* target_ws;
    const char* target;
    bool allowed;
  };
  const Role R = Role::kReader, W = Role::kWriter, O = Role::kOwner;
  for (const Case& c : std::initializer_list<Case>{
           // Workspace scope.
           {"acme", R, "*", R, "acme", "", true},
           {"acme", R, "*", R, "other", "", false},
           {"acme", O, "*", O, "other", "sales", false},
           {"*", R, "*", R, "any", "x.y", true},
           {"*", O, "*", O, "any", "", true},
           {"acme", O, "*", O, "*", "", false},  // global operations need a token of "*"
           {"*", O, "*", O, "*", "", true},
           {"*", W, "*", O, "*", "", false},
           {"acme", R, "*", R, "", "", false},  // no workspace named
           // Datasets by pattern.
           {"acme", W, "sales.*", W, "acme", "sales.orders", true},
           {"acme", W, "sales.*", W, "acme", "hr.people", false},
           {"acme", W, "sales.ord*", W, "acme", "sales.orders", true},
           {"acme", W, "sales.ord*", W, "acme", "sales.refunds", false},
           {"acme", W, "sales", W, "acme", "sales.orders", true},  // "sales" is "sales.*"
           {"acme", W, "s*", W, "acme", "sales.orders", true},
           {"acme", W, "*.orders", W, "acme", "sales.orders", true},
           {"acme", W, "*.orders", W, "acme", "sales.refunds", false},
           {"acme", W, "sal*s", W, "acme", "sa.xs", false},  // '*' never spans the dot
           {"acme", R, "s?les.*", R, "acme", "sales.x", true},
           // Collections: reading needs the collection glob; changing needs all its datasets.
           {"acme", R, "sales.orders", R, "acme", "sales", true},
           {"acme", R, "sales.orders", R, "acme", "hr", false},
           {"acme", O, "sales.orders", O, "acme", "sales", false},
           {"acme", O, "sales.*", O, "acme", "sales", true},
           {"acme", O, "sales", O, "acme", "sales", true},
           {"acme", O, "*", O, "acme", "newcoll", true},
           // The workspace itself: any token of it may read; changing it needs the pattern "*".
           {"acme", R, "sales.orders", R, "acme", "", true},
           {"acme", O, "sales.*", O, "acme", "", false},
           {"acme", W, "*", W, "acme", "", true},
           {"acme", O, "*.*", O, "acme", "", true},
       }) {
    Principal p = Make(c.ws, c.role, c.pattern);
    EXPECT_EQ(MayAccess(p, c.need, c.target_ws, c.target), c.allowed)
        << c.ws << "/" << RoleName(c.role) << "/" << c.pattern << " needs " << RoleName(c.need)
        << " on " << c.target_ws << ":" << c.target;
    Status st = Authorize(p, c.need, c.target_ws, c.target);
    EXPECT_EQ(st.ok(), c.allowed);
  }
}

TEST(Authorize, RefusalNamesWhatIsNeeded) {
  Status st = Authorize(Make("acme", Role::kReader, "*"), Role::kWriter, "acme", "sales.orders");
  EXPECT_EQ(st.kind(), ErrorKind::kPermissionDenied);
  std::map<std::string, std::string> f(st.fields().begin(), st.fields().end());
  EXPECT_EQ(f["code"], "permission_denied");
  EXPECT_EQ(f["needed_role"], "writer");
  EXPECT_EQ(f["workspace"], "acme");
  EXPECT_EQ(f["target"], "sales.orders");
  EXPECT_NE(st.message().find("writer"), std::string::npos);
  Status ws = Authorize(Make("acme", Role::kOwner, "*"), Role::kReader, "other", "");
  EXPECT_NE(ws.message().find("acme"), std::string::npos);
  Status pat = Authorize(Make("acme", Role::kOwner, "hr.*"), Role::kReader, "acme", "sales.x");
  EXPECT_NE(pat.message().find("hr.*"), std::string::npos);
}

TEST(AuthorizeGrant, NoMoreThanOwnRoleAndScope) {
  auto spec = [](std::string ws, Role role, std::string pattern) {
    AccessTokenSpec s;
    s.workspace = std::move(ws);
    s.role = role;
    s.pattern = std::move(pattern);
    return s;
  };
  Principal root = Make("*", Role::kOwner, "*");
  EXPECT_TRUE(AuthorizeGrant(root, spec("*", Role::kOwner, "*")).ok());
  EXPECT_TRUE(AuthorizeGrant(root, spec("acme", Role::kReader, "a.b")).ok());
  Principal acme = Make("acme", Role::kOwner, "*");
  EXPECT_TRUE(AuthorizeGrant(acme, spec("acme", Role::kWriter, "sales.*")).ok());
  EXPECT_FALSE(AuthorizeGrant(acme, spec("other", Role::kReader, "*")).ok());
  EXPECT_FALSE(AuthorizeGrant(acme, spec("*", Role::kReader, "*")).ok());
  Principal sales = Make("acme", Role::kOwner, "sales.*");
  EXPECT_TRUE(AuthorizeGrant(sales, spec("acme", Role::kReader, "sales.orders")).ok());
  EXPECT_TRUE(AuthorizeGrant(sales, spec("acme", Role::kOwner, "sales")).ok());
  EXPECT_FALSE(AuthorizeGrant(sales, spec("acme", Role::kReader, "*")).ok());
  EXPECT_FALSE(AuthorizeGrant(sales, spec("acme", Role::kReader, "hr.*")).ok());
  EXPECT_FALSE(AuthorizeGrant(sales, spec("acme", Role::kReader, "s*.x")).ok());
  Principal writer = Make("*", Role::kWriter, "*");
  Status st = AuthorizeGrant(writer, spec("acme", Role::kReader, "*"));
  EXPECT_EQ(st.kind(), ErrorKind::kPermissionDenied);
  EXPECT_NE(st.message().find("owner"), std::string::npos);
}

}  // namespace
}  // namespace tarn::auth
