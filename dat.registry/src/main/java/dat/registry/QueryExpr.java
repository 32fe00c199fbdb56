// SPDX-License-Identifier: Apache-2.0
package dat.registry;

/**
 * The syntax tree of a selection query. Every node keeps the 1-based column it was parsed at (0 for nodes
 * built through the Java API), so a type error found after parsing can still point at the text.
 */
sealed interface QueryExpr {

    /** {@return the 1-based column of this node in the parsed text, 0 when it has none} */
    int column();

    /**
     * An attribute reference.
     *
     * @param attribute the attribute
     * @param column where it was written
     */
    record Attr(QueryAttributes.Attribute attribute, int column) implements QueryExpr {
    }

    /**
     * A bare word that is not an attribute: valid only as an enum constant compared with an enum attribute
     * ({@code iov_ownership_on_return == CONSUMER}); anywhere else it is reported as an unknown attribute.
     *
     * @param name the word
     * @param column where it was written
     */
    record Symbol(String name, int column) implements QueryExpr {
    }

    /**
     * An integer literal.
     *
     * @param value its value
     * @param text how it was written ({@code 1m}, {@code 0x10}), kept so the query prints back as written
     * @param column where it was written
     */
    record IntLit(long value, String text, int column) implements QueryExpr {
    }

    /**
     * {@code true} or {@code false}.
     *
     * @param value the value
     * @param column where it was written
     */
    record BoolLit(boolean value, int column) implements QueryExpr {
    }

    /**
     * A string literal.
     *
     * @param value the value, escapes resolved
     * @param column where it was written
     */
    record StrLit(String value, int column) implements QueryExpr {
    }

    /**
     * Logical negation; an integer operand is false when zero, as in C.
     *
     * @param operand the negated condition
     * @param column where the {@code !} was written
     */
    record Not(QueryExpr operand, int column) implements QueryExpr {
    }

    /**
     * A binary operator.
     *
     * @param op the operator
     * @param left the left operand
     * @param right the right operand
     * @param column where the operator was written
     */
    record Binary(Op op, QueryExpr left, QueryExpr right, int column) implements QueryExpr {
    }

    /**
     * Binary operators with their precedence, loosest first. Unlike C, {@code &} and {@code |} bind tighter than
     * the comparisons (as in Rust, Go and Python): {@code ep_recv_info_supported & 0x10 != 0} then means what it
     * reads as, where C's precedence would compare {@code 0x10 != 0} first.
     */
    enum Op {
        OR("||", 1),
        AND("&&", 2),
        EQ("==", 3),
        NE("!=", 3),
        LT("<", 3),
        LE("<=", 3),
        GT(">", 3),
        GE(">=", 3),
        BIT_OR("|", 4),
        BIT_AND("&", 5);

        private final String symbol;
        private final int precedence;

        Op(String symbol, int precedence) {
            this.symbol = symbol;
            this.precedence = precedence;
        }

        /** {@return the operator as written} */
        String symbol() {
            return symbol;
        }

        /** {@return its precedence; higher binds tighter} */
        int precedence() {
            return precedence;
        }

        /** {@return whether this is one of the six comparisons, which do not chain} */
        boolean isComparison() {
            return precedence == 3;
        }
    }

    /** Precedence of {@code !} and of primaries: tighter than every binary operator. */
    int UNARY_PRECEDENCE = 6;

    /** Operands of a comparison below this precedence, that is every binary operator, are parenthesized. */
    int BITWISE_IN_COMPARISON = UNARY_PRECEDENCE;

    /**
     * {@return the levels of a tree, 1 for a leaf}
     *
     * @param expr a tree no deeper than {@link QueryParser#MAX_DEPTH}, as parsing guarantees
     */
    static int height(QueryExpr expr) {
        return switch (expr) {
            case Not n -> height(n.operand()) + 1;
            case Binary b -> Math.max(height(b.left()), height(b.right())) + 1;
            default -> 1;
        };
    }

    /**
     * {@return the nodes of a tree}
     *
     * @param expr a tree no deeper than {@link QueryParser#MAX_DEPTH}, whose nodes are not shared
     */
    static long size(QueryExpr expr) {
        return switch (expr) {
            case Not n -> size(n.operand()) + 1;
            case Binary b -> size(b.left()) + size(b.right()) + 1;
            default -> 1;
        };
    }

    /**
     * Prints a tree back as query text with only the parentheses its precedence needs, so that parsing the text
     * gives an equivalent tree.
     *
     * @param expr the tree
     * @return the query text
     */
    static String render(QueryExpr expr) {
        StringBuilder sb = new StringBuilder();
        render(expr, sb);
        return sb.toString();
    }

    private static void render(QueryExpr expr, StringBuilder sb) {
        switch (expr) {
            case Attr a -> sb.append(a.attribute().name());
            case Symbol s -> sb.append(s.name());
            case IntLit i -> sb.append(i.text());
            case BoolLit b -> sb.append(b.value());
            case StrLit s -> quote(s.value(), sb);
            case Not n -> {
                sb.append('!');
                renderOperand(n.operand(), UNARY_PRECEDENCE, sb);
            }
            case Binary b -> {
                int p = b.op().precedence();
                // Comparisons do not associate, so a comparison operand of a comparison needs parentheses.
                // Bitwise operands of a comparison get them too although precedence does not need them: a
                // reader who knows C would otherwise read (x & 0x10) != 0 printed bare as x & (0x10 != 0).
                int left = b.op().isComparison() ? BITWISE_IN_COMPARISON : p;
                renderOperand(b.left(), left, sb);
                sb.append(' ').append(b.op().symbol()).append(' ');
                renderOperand(b.right(), b.op().isComparison() ? BITWISE_IN_COMPARISON : p + 1, sb);
            }
        }
    }

    private static void renderOperand(QueryExpr operand, int minimumPrecedence, StringBuilder sb) {
        boolean parenthesize = operand instanceof Binary b && b.op().precedence() < minimumPrecedence;
        if (parenthesize) {
            sb.append('(');
        }
        render(operand, sb);
        if (parenthesize) {
            sb.append(')');
        }
    }

    /**
     * Appends a string literal with double quotes and the escapes {@code \\} and {@code \"}.
     *
     * @param value the string
     * @param sb where to append
     */
    static void quote(String value, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append('"');
    }
}
