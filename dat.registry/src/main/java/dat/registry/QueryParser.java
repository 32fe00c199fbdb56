// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.registry.QueryExpr.Binary;
import dat.registry.QueryExpr.Op;
import java.util.IdentityHashMap;

/**
 * Recursive-descent parser of the text form of a selection query.
 *
 * <pre>
 * query      = or EOF
 * or         = and { "||" and }
 * and        = comparison { "&amp;&amp;" comparison }
 * comparison = bitor [ ("==" | "!=" | "&lt;" | "&lt;=" | "&gt;" | "&gt;=") bitor ]
 * bitor      = bitand { "|" bitand }
 * bitand     = unary { "&amp;" unary }
 * unary      = "!" unary | "-" integer | primary
 * primary    = integer | string | "true" | "false" | name | "(" or ")"
 * integer    = (decimal | "0x" hex) [ "k" | "m" | "g" ]      (suffixes are powers of 1024, either case)
 * string     = '"' ... '"' | "'" ... "'"                      (escapes \\ \" \')
 * name       = letter-or-underscore { letter-or-digit-or-underscore }
 * </pre>
 * Comparisons do not chain ({@code 1 < x < 4} is an error rather than C's surprise). Whitespace separates
 * tokens and is otherwise ignored.
 *
 * <p>A query is at most {@link #MAX_LENGTH} characters and its tree at most {@link #MAX_DEPTH} levels deep
 * (parentheses, {@code !} and every operator of a chain such as {@code a || b || c} count): the parser, the
 * checker, the evaluator and the printer all recurse over the tree, and a limit reported with its column is better
 * than a {@link StackOverflowError} at whatever depth the thread's stack allows.
 */
final class QueryParser {

    /** The longest query text accepted: far more than anyone types, little enough to parse at once. */
    static final int MAX_LENGTH = 16_384;

    /** The deepest tree accepted, and the most parentheses and {@code !} nested. */
    static final int MAX_DEPTH = 128;

    /** The longest token a message quotes. */
    private static final int QUOTE_MAX_LENGTH = 40;

    private final String text;
    /** Index of the next unread character. */
    private int pos;
    /** Parentheses and {@code !} open around {@link #pos}: the recursion the next token costs. */
    private int nesting;
    /** The height of every node built so far. */
    private final IdentityHashMap<QueryExpr, Integer> heights = new IdentityHashMap<>();

    private QueryParser(String text) {
        this.text = text;
    }

    /**
     * Parses and type-checks a query.
     *
     * @param text the query text
     * @return its tree
     * @throws DatQuerySyntaxException with the column of the first error
     */
    static QueryExpr parse(String text) {
        QueryParser parser = new QueryParser(text);
        if (text.length() > MAX_LENGTH) {
            throw parser.error(MAX_LENGTH, "the query is " + text.length() + " characters long; at most " + MAX_LENGTH
                    + " are allowed");
        }
        QueryExpr expr = parser.or();
        parser.skipBlanks();
        if (parser.pos < text.length()) {
            throw parser.error(parser.pos, "expected an operator or the end of the query but found "
                    + parser.describeNext());
        }
        QueryChecker.checkCondition(expr, text);
        return expr;
    }

    private QueryExpr or() {
        QueryExpr left = and();
        for (int at = operator("||"); at >= 0; at = operator("||")) {
            left = binary(Op.OR, left, and(), at);
        }
        return left;
    }

    private QueryExpr and() {
        QueryExpr left = comparison();
        for (int at = operator("&&"); at >= 0; at = operator("&&")) {
            left = binary(Op.AND, left, comparison(), at);
        }
        return left;
    }

    private QueryExpr comparison() {
        QueryExpr left = bitOr();
        Op op = comparisonOperator();
        if (op == null) {
            return left;
        }
        int at = pos - op.symbol().length();
        QueryExpr result = binary(op, left, bitOr(), at);
        skipBlanks();
        int next = pos;
        if (comparisonOperator() != null) {
            throw error(next, "comparisons do not chain; combine them with &&");
        }
        return result;
    }

    /** Reads a comparison operator if one is next; {@code <} must not be taken for the start of {@code <=}. */
    private Op comparisonOperator() {
        skipBlanks();
        for (Op op : new Op[] {Op.EQ, Op.NE, Op.LE, Op.GE, Op.LT, Op.GT}) {
            if (text.startsWith(op.symbol(), pos)) {
                pos += op.symbol().length();
                return op;
            }
        }
        if (pos < text.length() && text.charAt(pos) == '=') {
            throw error(pos, "unexpected '='; use == to compare");
        }
        return null;
    }

    private QueryExpr bitOr() {
        QueryExpr left = bitAnd();
        for (int at = single('|'); at >= 0; at = single('|')) {
            left = binary(Op.BIT_OR, left, bitAnd(), at);
        }
        return left;
    }

    private QueryExpr bitAnd() {
        QueryExpr left = unary();
        for (int at = single('&'); at >= 0; at = single('&')) {
            left = binary(Op.BIT_AND, left, unary(), at);
        }
        return left;
    }

    private QueryExpr unary() {
        skipBlanks();
        if (pos < text.length() && text.charAt(pos) == '!' && !text.startsWith("!=", pos)) {
            int at = pos++;
            enter(at);
            QueryExpr operand = unary();
            nesting--;
            QueryExpr not = new QueryExpr.Not(operand, at + 1);
            return measured(not, height(operand) + 1, at);
        }
        if (pos < text.length() && text.charAt(pos) == '-') {
            int at = pos++;
            skipBlanks();
            if (pos == text.length() || !isDigit(text.charAt(pos))) {
                throw error(pos, "expected a number after '-' but found " + describeNext());
            }
            return integer(at, true);
        }
        return primary();
    }

    private QueryExpr primary() {
        skipBlanks();
        if (pos == text.length()) {
            throw error(pos, "expected an attribute, a literal, '!' or '(' but found the end of the query");
        }
        char c = text.charAt(pos);
        if (c == '(') {
            int open = pos++;
            enter(open);
            QueryExpr inner = or();
            nesting--;
            skipBlanks();
            if (pos == text.length() || text.charAt(pos) != ')') {
                throw error(pos, "expected ')' to close the '(' at column " + (open + 1) + " but found "
                        + describeNext());
            }
            pos++;
            return inner;
        }
        if (isDigit(c)) {
            return integer(pos, false);
        }
        if (c == '"' || c == '\'') {
            return string();
        }
        if (isNameStart(c)) {
            int start = pos;
            while (pos < text.length() && isNamePart(text.charAt(pos))) {
                pos++;
            }
            String name = text.substring(start, pos);
            return switch (name) {
                case "true" -> new QueryExpr.BoolLit(true, start + 1);
                case "false" -> new QueryExpr.BoolLit(false, start + 1);
                default -> {
                    QueryAttributes.Attribute attribute = QueryAttributes.find(name);
                    yield attribute != null ? new QueryExpr.Attr(attribute, start + 1)
                            : new QueryExpr.Symbol(name, start + 1);
                }
            };
        }
        throw error(pos, "expected an attribute, a literal, '!' or '(' but found " + describeNext());
    }

    /**
     * Reads an integer literal at {@code pos}.
     *
     * @param start where the literal, including a leading minus, starts
     * @param negative whether a minus preceded it
     */
    private QueryExpr integer(int start, boolean negative) {
        int digitsStart = pos;
        int radix = 10;
        if (text.startsWith("0x", pos) || text.startsWith("0X", pos)) {
            radix = 16;
            pos += 2;
            digitsStart = pos;
        }
        while (pos < text.length() && Character.digit(text.charAt(pos), radix) >= 0) {
            pos++;
        }
        if (pos == digitsStart) {
            throw error(pos, "expected hexadecimal digits after 0x");
        }
        String digits = text.substring(digitsStart, pos);
        int shift = 0;
        if (pos < text.length()) {
            shift = switch (Character.toLowerCase(text.charAt(pos))) {
                case 'k' -> 10;
                case 'm' -> 20;
                case 'g' -> 30;
                default -> 0;
            };
            if (shift != 0) {
                pos++;
            }
        }
        if (pos < text.length() && isNamePart(text.charAt(pos))) {
            throw error(pos, "unexpected " + quote(text.substring(pos, pos + 1)) + " in a number; suffixes are k, m"
                    + " and g");
        }
        String literal = text.substring(start, pos);
        long value;
        try {
            value = Math.multiplyExact(Long.parseLong((negative ? "-" : "") + digits, radix), 1L << shift);
        } catch (NumberFormatException | ArithmeticException e) {
            throw error(start, "number " + SafeText.escape(literal, QUOTE_MAX_LENGTH) + " does not fit in 64 bits");
        }
        return new QueryExpr.IntLit(value, literal.replaceAll("\\s+", ""), start + 1);
    }

    private QueryExpr string() {
        char quote = text.charAt(pos);
        int open = pos++;
        StringBuilder value = new StringBuilder();
        while (true) {
            if (pos == text.length()) {
                throw error(open, "unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == quote) {
                return new QueryExpr.StrLit(value.toString(), open + 1);
            }
            if (c == '\\') {
                if (pos == text.length()) {
                    throw error(open, "unterminated string");
                }
                char escaped = text.charAt(pos);
                if (escaped != '\\' && escaped != '"' && escaped != '\'') {
                    throw error(pos - 1, "bad escape \\" + (SafeText.isPrintable(escaped) ? String.valueOf(escaped)
                            : SafeText.codePoint(escaped)) + "; only \\\\, \\\" and \\' are allowed");
                }
                pos++;
                c = escaped;
            }
            value.append(c);
        }
    }

    /** Counts one more level of recursion, refusing the one beyond {@link #MAX_DEPTH}. */
    private void enter(int at) {
        if (++nesting > MAX_DEPTH) {
            throw error(at, "the query nests more than " + MAX_DEPTH + " levels of parentheses and '!'");
        }
    }

    private QueryExpr binary(Op op, QueryExpr left, QueryExpr right, int at) {
        return measured(new Binary(op, left, right, at + 1), Math.max(height(left), height(right)) + 1, at);
    }

    /** Records a node's height, refusing a tree deeper than {@link #MAX_DEPTH} at the operator that makes it so. */
    private QueryExpr measured(QueryExpr node, int height, int at) {
        if (height > MAX_DEPTH) {
            throw error(at, "the query nests more than " + MAX_DEPTH + " levels deep (every operator of a chain"
                    + " such as a || b || c is a level); split it or use fewer operators");
        }
        heights.put(node, height);
        return node;
    }

    /** {@return the height of a node built by this parser: 1 for a leaf} */
    private int height(QueryExpr node) {
        return heights.getOrDefault(node, 1);
    }

    /** {@return the index of {@code symbol} when it is next and consumed, else -1} */
    private int operator(String symbol) {
        skipBlanks();
        if (text.startsWith(symbol, pos)) {
            int at = pos;
            pos += symbol.length();
            return at;
        }
        return -1;
    }

    /** Consumes a one-character operator unless it is the first half of its doubled form ({@code &} vs {@code &&}). */
    private int single(char symbol) {
        skipBlanks();
        if (pos < text.length() && text.charAt(pos) == symbol
                && (pos + 1 == text.length() || text.charAt(pos + 1) != symbol)) {
            return pos++;
        }
        return -1;
    }

    private void skipBlanks() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private String describeNext() {
        if (pos >= text.length()) {
            return "the end of the query";
        }
        int end = pos + 1;
        if (isNamePart(text.charAt(pos))) {
            while (end < text.length() && isNamePart(text.charAt(end))) {
                end++;
            }
        } else if (end < text.length() && "|&=<>!".indexOf(text.charAt(end)) >= 0
                && "|&=<>!".indexOf(text.charAt(pos)) >= 0) {
            end++;
        }
        return quote(text.substring(pos, end));
    }

    /** {@return a token for a message: in quotes, cut, and a non-printable character named by its code point} */
    private static String quote(String token) {
        if (token.codePointCount(0, token.length()) == 1 && !SafeText.isPrintable(token.codePointAt(0))) {
            return SafeText.codePoint(token.codePointAt(0));
        }
        return "'" + SafeText.escape(token, QUOTE_MAX_LENGTH) + "'";
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isNameStart(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || isDigit(c);
    }

    private DatQuerySyntaxException error(int index, String reason) {
        return new DatQuerySyntaxException(text, index + 1, "column " + (index + 1) + ": " + reason);
    }
}
