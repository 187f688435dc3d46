#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/frontend/lexer.h"

namespace fuserlab::frontend {
namespace {

class LexerTest : public ::testing::Test {
 protected:
  static std::vector<Token> lex(std::string_view source) { return tokenize(source, "test.py"); }

  // "name:x op:= num:1 NEWLINE EOF": kinds and spellings, to compare streams.
  static std::string summary(std::string_view source) {
    std::string out;
    for (const Token& token : lex(source)) {
      if (!out.empty()) out += ' ';
      switch (token.kind) {
        case TokenKind::kName: out += "name:" + token.text; break;
        case TokenKind::kKeyword: out += "kw:" + token.text; break;
        case TokenKind::kNumber: out += "num:" + token.text; break;
        case TokenKind::kString: out += "str:" + token.text; break;
        case TokenKind::kOperator: out += "op:" + token.text; break;
        case TokenKind::kNewline: out += "NEWLINE"; break;
        case TokenKind::kIndent: out += "INDENT"; break;
        case TokenKind::kDedent: out += "DEDENT"; break;
        case TokenKind::kEndOfFile: out += "EOF"; break;
      }
    }
    return out;
  }

  // The error that lexing `source` throws; fails the test if none.
  static UserError lexError(std::string_view source) {
    try {
      lex(source);
    } catch (const UserError& error) {
      return error;
    }
    ADD_FAILURE() << "no error for: " << source;
    return UserError("no error");
  }

  static Token single(std::string_view source) {
    std::vector<Token> tokens = lex(source);
    EXPECT_EQ(tokens.size(), 3u) << source;  // the token, NEWLINE, EOF
    return tokens.front();
  }
};

TEST_F(LexerTest, TokensCarryOneBasedLinesAndColumns) {
  std::vector<Token> tokens = lex("T0 = fd.ops.add(a, b)\n  \nx=1");
  ASSERT_GE(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].text, "T0");
  EXPECT_EQ(tokens[0].line, 1);
  EXPECT_EQ(tokens[0].column, 1);
  EXPECT_EQ(tokens[0].endColumn, 3);
  EXPECT_EQ(tokens[2].text, "fd");
  EXPECT_EQ(tokens[2].column, 6);
  EXPECT_EQ(tokens[7].text, "(");
  EXPECT_EQ(tokens[7].column, 16);
  const Token& x = tokens[13];
  EXPECT_EQ(x.text, "x");
  EXPECT_EQ(x.line, 3);
  EXPECT_EQ(x.column, 1);
}

TEST_F(LexerTest, NamesKeywordsAndOperators) {
  EXPECT_EQ(summary("def f(fd : X) -> None :"),
            "kw:def name:f op:( name:fd op:: name:X op:) op:-> kw:None op:: "
            "NEWLINE EOF");
  EXPECT_EQ(summary("a ** b // c == d != e <= f >= g @ h"),
            "name:a op:** name:b op:// name:c op:== name:d op:!= name:e op:<= "
            "name:f op:>= name:g op:@ name:h NEWLINE EOF");
  EXPECT_EQ(summary("x.y, z = [1]; w += 2"),
            "name:x op:. name:y op:, name:z op:= op:[ num:1 op:] op:; name:w "
            "op:+= num:2 NEWLINE EOF");
  EXPECT_EQ(summary("not True and False or None"),
            "kw:not kw:True kw:and kw:False kw:or kw:None NEWLINE EOF");
}

TEST_F(LexerTest, IndentAndDedentFollowLeadingWhitespace) {
  EXPECT_EQ(summary("def f():\n"
                    "    if x:\n"
                    "        a\n"
                    "    b\n"
                    "c\n"),
            "kw:def name:f op:( op:) op:: NEWLINE INDENT kw:if name:x op:: "
            "NEWLINE INDENT name:a NEWLINE DEDENT name:b NEWLINE DEDENT name:c "
            "NEWLINE EOF");
  // Two blocks closed by one line, and blocks still open at the end of file.
  EXPECT_EQ(summary("a:\n b:\n  c\nd\ne:\n f"),
            "name:a op:: NEWLINE INDENT name:b op:: NEWLINE INDENT name:c "
            "NEWLINE DEDENT DEDENT name:d NEWLINE name:e op:: NEWLINE INDENT "
            "name:f NEWLINE DEDENT EOF");
}

TEST_F(LexerTest, TabsIndentLikeCPython) {
  EXPECT_EQ(summary("a:\n\tb\n\tc\n"),
            "name:a op:: NEWLINE INDENT name:b NEWLINE name:c NEWLINE DEDENT "
            "EOF");
  // A tab and eight spaces agree at tab width 8 but not at width 1.
  UserError error = lexError("a:\n\tb\n        c\n");
  ASSERT_TRUE(error.location());
  EXPECT_EQ(error.location()->line, 3);
  EXPECT_EQ(error.location()->column, 9);
  EXPECT_NE(error.message().find("inconsistent use of tabs and spaces"), std::string::npos);
}

TEST_F(LexerTest, UnindentToAnUnknownLevelIsAnError) {
  UserError error = lexError("def f():\n    a\n  b\n");
  ASSERT_TRUE(error.location());
  EXPECT_EQ(error.location()->line, 3);
  EXPECT_EQ(error.location()->column, 3);
  EXPECT_EQ(error.location()->lineText, "  b");
  EXPECT_NE(error.message().find("unindent does not match"), std::string::npos);
}

TEST_F(LexerTest, BlankLinesAndCommentsMakeNoTokens) {
  EXPECT_EQ(summary("# header\n\n   \n  # indented comment\na  # trailing\n\n"
                    "\t\nb\n# last"),
            "name:a NEWLINE name:b NEWLINE EOF");
  EXPECT_EQ(summary(""), "EOF");
  EXPECT_EQ(summary("\n\n# only a comment\n"), "EOF");
}

TEST_F(LexerTest, BracketsAndBackslashesJoinLines) {
  // Inside brackets neither newlines nor indentation count.
  EXPECT_EQ(summary("f(a,\n      b,\n\n  # c\n)\ng"),
            "name:f op:( name:a op:, name:b op:, op:) NEWLINE name:g NEWLINE "
            "EOF");
  EXPECT_EQ(summary("x = [\n  1,\n    2,\n]\n"),
            "name:x op:= op:[ num:1 op:, num:2 op:, op:] NEWLINE EOF");
  std::vector<Token> tokens = lex("x = 1 + \\\n    2\ny");
  EXPECT_EQ(tokens[4].text, "2");
  EXPECT_EQ(tokens[4].line, 2);
  EXPECT_EQ(tokens[4].column, 5);
  EXPECT_EQ(tokens[5].kind, TokenKind::kNewline);
  EXPECT_EQ(tokens[6].text, "y");
}

TEST_F(LexerTest, NewlineAndEndOfFileSitAfterTheLastToken) {
  std::vector<Token> tokens = lex("a = 1   # comment\n\n\n");
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(tokens[3].kind, TokenKind::kNewline);
  EXPECT_EQ(tokens[3].line, 1);
  EXPECT_EQ(tokens[3].column, 6);
  EXPECT_EQ(tokens[4].kind, TokenKind::kEndOfFile);
  EXPECT_EQ(tokens[4].line, 1);
}

TEST_F(LexerTest, CarriageReturnsEndLinesToo) {
  EXPECT_EQ(summary("a\r\nb\rc"), "name:a NEWLINE name:b NEWLINE name:c NEWLINE EOF");
  EXPECT_EQ(lex("a\r\nb")[2].line, 2);
}

TEST_F(LexerTest, IntegerLiterals) {
  Token decimal = single("3276800");
  EXPECT_TRUE(decimal.isInt);
  EXPECT_EQ(decimal.intValue, 3276800);
  EXPECT_EQ(decimal.floatValue, 3276800.0);
  EXPECT_EQ(single("0x1F").intValue, 31);
  EXPECT_EQ(single("0XfF").intValue, 255);
  EXPECT_EQ(single("0o17").intValue, 15);
  EXPECT_EQ(single("0b101").intValue, 5);
  EXPECT_EQ(single("1_000_000").intValue, 1000000);
  EXPECT_EQ(single("0x_ff").intValue, 255);
  EXPECT_EQ(single("000").intValue, 0);
  EXPECT_EQ(single("9223372036854775807").intValue, INT64_MAX);
  EXPECT_EQ(single("1_0").text, "1_0");
}

TEST_F(LexerTest, FloatLiterals) {
  struct Case {
    const char* text;
    double value;
  };
  for (Case c : {Case{"1.5", 1.5}, Case{"1e-05", 1e-05}, Case{"1.00000e-05", 1e-05},
                 Case{".5", 0.5}, Case{"5.", 5.0}, Case{"1.00000", 1.0}, Case{"2E+3", 2000.0},
                 Case{"1_0.2_5", 10.25}, Case{"0.0", 0.0}, Case{"09.5", 9.5}}) {
    Token token = single(c.text);
    EXPECT_EQ(token.kind, TokenKind::kNumber) << c.text;
    EXPECT_FALSE(token.isInt) << c.text;
    EXPECT_DOUBLE_EQ(token.floatValue, c.value) << c.text;
    EXPECT_EQ(token.text, c.text);
  }
  EXPECT_TRUE(std::isinf(single("1e999").floatValue));
  EXPECT_EQ(single("1e-999").floatValue, 0.0);
}

TEST_F(LexerTest, MalformedNumbersAreErrors) {
  struct Case {
    const char* source;
    int column;
    const char* message;
  };
  for (Case c : {Case{"x = 012", 5, "leading zeros"}, Case{"x = 1_", 6, "invalid decimal literal"},
                 Case{"x = 1__0", 6, "invalid decimal literal"},
                 Case{"x = 0x", 7, "expected a digit after '0x'"},
                 Case{"x = 0b102", 9, "invalid digit '2' in binary"},
                 Case{"x = 12abc", 7, "invalid decimal literal"}, Case{"x = 1e", 7, "exponent"},
                 Case{"x = 3j", 5, "complex number literals"},
                 Case{"x = 9223372036854775808", 5, "does not fit in 64 bits"}}) {
    UserError error = lexError(c.source);
    ASSERT_TRUE(error.location()) << c.source;
    EXPECT_EQ(error.location()->line, 1) << c.source;
    EXPECT_EQ(error.location()->column, c.column) << c.source;
    EXPECT_NE(error.message().find(c.message), std::string::npos)
        << c.source << " -> " << error.message();
  }
}

TEST_F(LexerTest, StringLiterals) {
  EXPECT_EQ(single("'cuda:0'").text, "cuda:0");
  EXPECT_EQ(single("\"inf\"").text, "inf");
  EXPECT_EQ(single(R"('a\'b\"c\\d\n\t')").text, "a'b\"c\\d\n\t");
  EXPECT_EQ(single(R"("\x41\101\u00e9")").text, "AA\xC3\xA9");
  EXPECT_EQ(single(R"('\q')").text, "\\q");  // unknown escapes stay
  EXPECT_EQ(single("'a' ").stringPrefix, "");

  Token raw = single(R"(r'\d+\'')");
  EXPECT_EQ(raw.text, "\\d+\\'");
  EXPECT_EQ(raw.stringPrefix, "r");
  Token bytes = single(R"(b'\xff\u')");
  EXPECT_EQ(bytes.text, "\xff\\u");
  EXPECT_EQ(bytes.stringPrefix, "b");
  Token format = single("f'{x}!'");
  EXPECT_EQ(format.text, "{x}!");
  EXPECT_EQ(format.stringPrefix, "f");
  EXPECT_EQ(single("Rb'x'").stringPrefix, "rb");
  EXPECT_EQ(single("u'x'").stringPrefix, "");
  // A name that is not a prefix stays a name.
  EXPECT_EQ(summary("rx'y'"), "name:rx str:y NEWLINE EOF");
}

TEST_F(LexerTest, TripleQuotedStringsSpanLines) {
  std::vector<Token> tokens = lex("s = \"\"\"first\n  'second' \"\n\"\"\"\nx\n");
  ASSERT_GE(tokens.size(), 6u);
  EXPECT_EQ(tokens[2].text, "first\n  'second' \"\n");
  EXPECT_EQ(tokens[2].line, 1);
  EXPECT_EQ(tokens[2].column, 5);
  EXPECT_EQ(tokens[2].endLine, 3);
  EXPECT_EQ(tokens[4].text, "x");
  EXPECT_EQ(tokens[4].line, 4);
  EXPECT_EQ(single("'''a''b'''").text, "a''b");
  EXPECT_EQ(single("''").text, "");
}

TEST_F(LexerTest, UnterminatedStringsPointAtTheirStart) {
  UserError single = lexError("x = 1\ny = 'abc\nz = 2\n");
  ASSERT_TRUE(single.location());
  EXPECT_EQ(single.location()->line, 2);
  EXPECT_EQ(single.location()->column, 5);
  EXPECT_EQ(single.location()->lineText, "y = 'abc");
  EXPECT_NE(single.message().find("unterminated string literal"), std::string::npos);

  UserError triple = lexError("x = 1\n  y = f(\"\"\"abc\n\n");
  ASSERT_TRUE(triple.location());
  EXPECT_EQ(triple.location()->line, 2);
  EXPECT_EQ(triple.location()->column, 9);
  EXPECT_NE(triple.message().find("unterminated triple-quoted"), std::string::npos);

  UserError escapedQuote = lexError("'abc\\'");
  ASSERT_TRUE(escapedQuote.location());
  EXPECT_EQ(escapedQuote.location()->column, 1);
}

TEST_F(LexerTest, BadCharactersAndBracketsAreErrors) {
  struct Case {
    const char* source;
    int line;
    int column;
    const char* message;
  };
  for (Case c :
       {Case{"a = $b", 1, 5, "unexpected character '$'"}, Case{"a = !b", 1, 5, "unexpected '!'"},
        Case{"a = b ?", 1, 7, "unexpected character '?'"},
        Case{"a = \xE2\x82\xAC", 1, 5, "non-ASCII byte 0xe2"},
        Case{"a = (1]", 1, 7,
             "expected ')' to close the '(' opened "
             "at 1:5, found ']'"},
        Case{"a = 1)\n", 1, 6, "unmatched ')'"}, Case{"a = 1 \\ b", 1, 8, "after the continuation"},
        Case{"a = \\", 1, 5, "found end of file"},
        Case{"x\n  y = \"\\x4\"", 2, 8, "truncated \\x escape"}}) {
    UserError error = lexError(c.source);
    ASSERT_TRUE(error.location()) << c.source;
    EXPECT_EQ(error.location()->line, c.line) << c.source;
    EXPECT_EQ(error.location()->column, c.column) << c.source;
    EXPECT_NE(error.message().find(c.message), std::string::npos)
        << c.source << " -> " << error.message();
  }
}

TEST_F(LexerTest, ErrorsNameTheFileAndShowTheLine) {
  UserError error = lexError("ok = 1\nbad = $\n");
  EXPECT_EQ(std::string(error.what()),
            "test.py:2:7: error: unexpected character '$'\n"
            "  bad = $\n"
            "        ^");
}

TEST_F(LexerTest, ByteOrderMarkIsSkipped) {
  std::vector<Token> tokens = lex("\xEF\xBB\xBFimport torch\n");
  EXPECT_EQ(tokens[0].text, "import");
  EXPECT_EQ(tokens[0].column, 1);
}

TEST_F(LexerTest, EndOfFileRepeats) {
  SourceText text("a", "t.py");
  Lexer lexer(text);
  EXPECT_EQ(lexer.next().kind, TokenKind::kName);
  EXPECT_EQ(lexer.next().kind, TokenKind::kNewline);
  EXPECT_EQ(lexer.next().kind, TokenKind::kEndOfFile);
  EXPECT_EQ(lexer.next().kind, TokenKind::kEndOfFile);
}

TEST_F(LexerTest, DescribeNamesTokensForMessages) {
  std::vector<Token> tokens = lex("name for 16 'text' ,");
  ASSERT_EQ(tokens.size(), 7u);
  EXPECT_EQ(describe(tokens[0]), "name 'name'");
  EXPECT_EQ(describe(tokens[1]), "keyword 'for'");
  EXPECT_EQ(describe(tokens[2]), "number 16");
  EXPECT_EQ(describe(tokens[3]), "string 'text'");
  EXPECT_EQ(describe(tokens[4]), "','");
  EXPECT_EQ(describe(tokens[5]), "end of line");
  EXPECT_EQ(describe(tokens[6]), "end of file");
}

}  // namespace
}  // namespace fuserlab::frontend
