#include "objectstore/s3/xml.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace tarn::s3 {
namespace {

TEST(Xml, ListBucketResult) {
  const std::string doc = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>
  <IsTruncated>true</IsTruncated>
  <Contents><Key>p/a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;</Key>
    <LastModified>2009-10-12T17:50:30.000Z</LastModified>
    <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><Size>434234</Size>
    <StorageClass>STANDARD</StorageClass></Contents>
  <Contents><Key>p/&#x65E5;&#26412;</Key><Size>0</Size></Contents>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
</ListBucketResult>)";
  auto xml = ParseXml(doc);
  ASSERT_TRUE(xml.ok()) << xml.status().ToString();
  EXPECT_EQ(xml->name, "ListBucketResult");
  EXPECT_EQ(xml->ChildText("IsTruncated"), "true");
  EXPECT_EQ(xml->ChildText("NextContinuationToken"),
            "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
  std::vector<const XmlNode*> contents;
  for (const auto& c : xml->children) {
    if (c.name == "Contents") contents.push_back(&c);
  }
  ASSERT_EQ(contents.size(), 2u);
  EXPECT_EQ(contents[0]->ChildText("Key"), "p/a & b <c> \"d\" 'e'");
  EXPECT_EQ(contents[0]->ChildText("ETag"), "\"fba9dede5f27731c9771645a39863328\"");
  EXPECT_EQ(contents[0]->ChildText("Size"), "434234");
  EXPECT_EQ(contents[1]->ChildText("Key"), "p/\xE6\x97\xA5\xE6\x9C\xAC");
  EXPECT_EQ(xml->ChildText("Missing"), "");
  EXPECT_EQ(xml->Child("Missing"), nullptr);
}

TEST(Xml, ErrorBodyAndVariants) {
  auto xml = ParseXml(
      "<Error><Code>SignatureDoesNotMatch</Code><Message></Message><RequestId>tx1</RequestId>"
      "<Self/><s3:Prefixed a='1' b = \"2\">v<!-- c --><![CDATA[<raw & stuff>]]></s3:Prefixed>"
      "</Error>\n");
  ASSERT_TRUE(xml.ok()) << xml.status().ToString();
  EXPECT_EQ(xml->name, "Error");
  EXPECT_EQ(xml->ChildText("Code"), "SignatureDoesNotMatch");
  EXPECT_EQ(xml->ChildText("Message"), "");
  ASSERT_NE(xml->Child("Self"), nullptr);
  EXPECT_EQ(xml->ChildText("Prefixed"), "v<raw & stuff>");
  auto self_closing_root = ParseXml("\xEF\xBB\xBF<Root/>");
  ASSERT_TRUE(self_closing_root.ok());
  EXPECT_EQ(self_closing_root->name, "Root");
}

TEST(Xml, MalformedInputIsCorruption) {
  const std::vector<std::string> bad = {
      "",
      "   ",
      "text only",
      "<a>",
      "<a></b>",
      "<a><b></a></b>",
      "<a>&unknown;</a>",
      "<a>&#0;</a>",
      "<a>&#xD800;</a>",
      "<a>&#x110000;</a>",
      "<a>&#;</a>",
      "<a>&amp</a>",
      "<a b></a>",
      "<a b=c></a>",
      "<a b=\"c></a>",
      "<a/><b/>",
      "<a></a>trailing",
      "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>",
      "<a><!DOCTYPE x></a>",
      "<a><![CDATA[never closed</a>",
      "<a><!-- never closed</a>",
      "<?xml never closed",
      "<>",
      "</a>",
      "<a>",
  };
  for (const auto& doc : bad) {
    auto r = ParseXml(doc);
    EXPECT_FALSE(r.ok()) << "accepted: " << doc;
    if (!r.ok()) {
      EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption) << doc;
    }
  }
}

TEST(Xml, LimitsAreEnforced) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  for (int i = 0; i < 100; ++i) deep += "</a>";
  EXPECT_FALSE(ParseXml(deep).ok());
  XmlLimits generous;
  generous.max_depth = 200;
  EXPECT_TRUE(ParseXml(deep, generous).ok());
  // Depth is checked iteratively: a million open tags cannot blow the stack.
  std::string very_deep;
  for (int i = 0; i < 1000000; ++i) very_deep += "<a>";
  EXPECT_FALSE(ParseXml(very_deep).ok());
  generous.max_depth = 2000000;  // clamped: the tree is never deeper than 256
  EXPECT_FALSE(ParseXml(very_deep, generous).ok());
  std::string deep300;
  for (int i = 0; i < 300; ++i) deep300 += "<a>";
  for (int i = 0; i < 300; ++i) deep300 += "</a>";
  EXPECT_FALSE(ParseXml(deep300, generous).ok());
  std::string many = "<r>";
  for (int i = 0; i < 1000; ++i) many += "<k/>";
  many += "</r>";
  XmlLimits few;
  few.max_nodes = 100;
  EXPECT_FALSE(ParseXml(many, few).ok());
  EXPECT_TRUE(ParseXml(many).ok());
  XmlLimits small;
  small.max_input_bytes = 10;
  EXPECT_FALSE(ParseXml(many, small).ok());
}

TEST(Xml, Escape) {
  EXPECT_EQ(XmlEscape("a&b<c>d\"e'f"), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
  auto round = ParseXml("<k>" + XmlEscape("x & <y> \"z\" 'w' 日本") + "</k>");
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(round->text, "x & <y> \"z\" 'w' 日本");
}

// Random corruptions of a valid document must never crash (run under ASan in CI).
TEST(Xml, MutatedDocumentsNeverCrash) {
  const std::string seed =
      "<?xml version=\"1.0\"?><ListBucketResult><IsTruncated>false</IsTruncated>"
      "<Contents><Key>a&amp;b</Key><Size>12</Size><ETag>&quot;x&quot;</ETag></Contents>"
      "<Contents><Key><![CDATA[c]]></Key><Size>3</Size></Contents><!-- n --></ListBucketResult>";
  const std::string alphabet = "<>/&;#x=\"'![]?- aZ09\xff";
  std::mt19937 rng(12345);
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string doc = seed;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (doc.size() + 1);
      switch (rng() % 3) {
        case 0:
          if (pos < doc.size()) doc.erase(pos, 1 + rng() % 8);
          break;
        case 1:
          doc.insert(pos, 1, alphabet[rng() % alphabet.size()]);
          break;
        default:
          if (pos < doc.size()) doc[pos] = alphabet[rng() % alphabet.size()];
      }
    }
    auto r = ParseXml(doc);
    if (r.ok()) ++parsed;
  }
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace tarn::s3
