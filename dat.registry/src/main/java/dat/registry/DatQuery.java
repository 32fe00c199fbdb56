// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.registry.QueryExpr.Binary;
import dat.registry.QueryExpr.Op;
import dat.spi.DatIaInfo;
import java.util.List;
import java.util.Objects;

/**
 * A condition on an IA's attributes, used by {@link DatRegistry#select(DatQuery)} to choose IAs and to explain
 * why the others were rejected.
 *
 * <p>Attributes are the DAT field names of {@link dat.api.DatProviderAttr} and {@link dat.api.DatIaAttr} (see
 * {@link dat.api.DatFields}) plus {@code ia_name}; {@code provider_name} is the provider attribute of that name.
 * A query has a text form, for command lines and configuration, and a Java form; both give the same object,
 * and {@link #toString()} gives back text that {@link #parse} accepts:
 * <pre>{@code
 * DatQuery q = DatQuery.parse("srq_supported && ep_recv_info_supported & 0x10 && optimal_buffer_alignment <= 256");
 * DatQuery same = DatQuery.attr("srq_supported").isTrue()
 *         .and(DatQuery.attr("ep_recv_info_supported").hasAnyBits(0x10))
 *         .and(DatQuery.attr("optimal_buffer_alignment").atMost(256));
 * }</pre>
 *
 * <p>The text form, loosest binding first: {@code ||}; {@code &&}; the comparisons {@code == != < <= > >=}
 * (which do not chain); {@code |}; {@code &}; {@code !}; parentheses. Unlike C, {@code &} and {@code |} bind
 * tighter than comparisons, so {@code x & 0x10 != 0} means {@code (x & 0x10) != 0}. An integer standing where a
 * condition is expected is true when it is not zero, as in C. Literals: decimal or {@code 0x} hexadecimal
 * integers with an optional {@code k}, {@code m} or {@code g} suffix (powers of 1024: {@code 1m} is 1048576),
 * {@code true}, {@code false}, and strings in double or single quotes. Enum attributes compare with a constant
 * name, bare or quoted: {@code iov_ownership_on_return == CONSUMER}. Only integers can be ordered; a comparison
 * of different kinds, an unknown attribute (reported with the nearest names) or a syntax error throws
 * {@link DatQuerySyntaxException} at parse time, never during selection.
 *
 * <p>A query is at most {@value QueryParser#MAX_LENGTH} characters long and nests at most
 * {@value QueryParser#MAX_DEPTH} levels deep (each operator of a chain such as {@code a || b || c} is a level);
 * beyond either, {@link #parse} and the combining methods throw {@link DatQuerySyntaxException}.
 *
 * <p>Instances are immutable and thread-safe; equal when their text is equal.
 */
public final class DatQuery {

    private static final DatQuery ALL = new DatQuery(new QueryExpr.BoolLit(true, 0));

    private final QueryExpr expr;
    private final String text;
    /** Levels of the tree, 1 for a leaf; kept so that combining never walks the trees it combines. */
    private final int height;
    /** Nodes of the tree, counted as often as they are shared, as printing visits them. */
    private final long size;

    /** A tree small enough to measure by walking it: one parsed or built from a single attribute. */
    private DatQuery(QueryExpr expr) {
        this(expr, QueryExpr.height(expr), QueryExpr.size(expr));
    }

    private DatQuery(QueryExpr expr, int height, long size) {
        if (height > QueryParser.MAX_DEPTH || size > QueryParser.MAX_LENGTH) {
            throw new DatQuerySyntaxException("(built through the Java API)", 0, "the query "
                    + (height > QueryParser.MAX_DEPTH ? "nests more than " + QueryParser.MAX_DEPTH + " levels deep"
                            : "has more than " + QueryParser.MAX_LENGTH + " terms and operators")
                    + ", more than a query may");
        }
        this.expr = expr;
        this.height = height;
        this.size = size;
        this.text = QueryExpr.render(expr);
        if (text.length() > QueryParser.MAX_LENGTH) {
            throw new DatQuerySyntaxException("(built through the Java API)", 0, "the query is " + text.length()
                    + " characters long as text, more than the " + QueryParser.MAX_LENGTH + " a query may be");
        }
    }

    /**
     * Parses the text form.
     *
     * @param text the query, for example {@code srq_supported && optimal_buffer_alignment <= 256}
     * @return the query
     * @throws DatQuerySyntaxException for a syntax error, an unknown attribute or mismatched kinds, with the
     *     column
     */
    public static DatQuery parse(String text) {
        return new DatQuery(QueryParser.parse(Objects.requireNonNull(text, "text")));
    }

    /** {@return the query every IA satisfies ({@code true}): selecting with it lists every available IA} */
    public static DatQuery all() {
        return ALL;
    }

    /**
     * Starts a condition on one attribute.
     *
     * @param name a DAT field name such as {@code max_iov_segments_per_dto}, or {@code ia_name}
     * @return the attribute, whose methods make conditions
     * @throws DatQuerySyntaxException for an unknown name, with the nearest known names
     */
    public static Attribute attr(String name) {
        QueryAttributes.Attribute attribute = QueryAttributes.find(Objects.requireNonNull(name, "name"));
        if (attribute == null) {
            throw new DatQuerySyntaxException(name, 1, "column 1: unknown attribute '" + SafeText.escape(name) + "'"
                    + QueryAttributes.didYouMean(
                    QueryAttributes.suggestions(name, QueryAttributes.all().keySet())));
        }
        return new Attribute(attribute);
    }

    /** {@return every attribute name a query can use, in declaration order} */
    public static List<String> attributeNames() {
        return List.copyOf(QueryAttributes.all().keySet());
    }

    /**
     * {@return a query satisfied when both are ({@code this && other})}
     *
     * @param other another condition
     */
    public DatQuery and(DatQuery other) {
        return new DatQuery(new Binary(Op.AND, expr, other.expr, 0), Math.max(height, other.height) + 1,
                size + other.size + 1);
    }

    /**
     * {@return a query satisfied when either is ({@code this || other})}
     *
     * @param other another condition
     */
    public DatQuery or(DatQuery other) {
        return new DatQuery(new Binary(Op.OR, expr, other.expr, 0), Math.max(height, other.height) + 1,
                size + other.size + 1);
    }

    /** {@return a query satisfied when this one is not ({@code !this})} */
    public DatQuery negate() {
        return new DatQuery(new QueryExpr.Not(expr, 0), height + 1, size + 1);
    }

    /**
     * {@return whether {@code ia} satisfies this query}
     *
     * @param ia an IA description
     */
    public boolean test(DatIaInfo ia) {
        return new QueryEvaluator(QueryAttributes.valuesOf(ia)).test(expr);
    }

    /**
     * Says why an IA does not satisfy this query: one reason per failing condition of a {@code &&}, naming the
     * attribute, the requirement and the actual value, for example {@code optimal_buffer_alignment <= 64 failed:
     * actual 256} or {@code srq_supported is false}; a failed {@code ||} gives one reason listing every
     * alternative.
     *
     * @param ia an IA description
     * @return the reasons; empty when the IA satisfies the query
     */
    public List<String> explain(DatIaInfo ia) {
        return List.copyOf(new QueryEvaluator(QueryAttributes.valuesOf(ia)).explain(expr));
    }

    /** {@return the text form, which {@link #parse} turns back into an equal query} */
    @Override
    public String toString() {
        return text;
    }

    /** Queries are equal when their text forms are. */
    @Override
    public boolean equals(Object o) {
        return o instanceof DatQuery other && text.equals(other.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /**
     * One attribute, from {@link DatQuery#attr}; each method makes a condition on it and checks that the
     * attribute's kind allows it.
     */
    public static final class Attribute {

        private final QueryExpr.Attr attr;

        private Attribute(QueryAttributes.Attribute attribute) {
            this.attr = new QueryExpr.Attr(attribute, 0);
        }

        /** {@return {@code name}: a boolean attribute is true, or an integer one is not zero} */
        public DatQuery isTrue() {
            return checked(attr);
        }

        /** {@return {@code !name}: a boolean attribute is false, or an integer one is zero} */
        public DatQuery isFalse() {
            return checked(new QueryExpr.Not(attr, 0));
        }

        /**
         * {@return {@code name == value}}
         *
         * @param value an {@link Integer} or {@link Long}, a {@link Boolean}, a {@link String} or an enum constant
         * @throws DatQuerySyntaxException when the value's kind does not match the attribute's
         */
        public DatQuery isEqualTo(Object value) {
            return checked(new Binary(Op.EQ, attr, literal(value), 0));
        }

        /**
         * {@return {@code name != value}}
         *
         * @param value as for {@link #isEqualTo}
         */
        public DatQuery isNotEqualTo(Object value) {
            return checked(new Binary(Op.NE, attr, literal(value), 0));
        }

        /**
         * {@return {@code name >= minimum}}
         *
         * @param minimum the smallest acceptable value
         */
        public DatQuery atLeast(long minimum) {
            return checked(new Binary(Op.GE, attr, integer(minimum), 0));
        }

        /**
         * {@return {@code name <= maximum}}
         *
         * @param maximum the largest acceptable value
         */
        public DatQuery atMost(long maximum) {
            return checked(new Binary(Op.LE, attr, integer(maximum), 0));
        }

        /**
         * {@return {@code name > bound}}
         *
         * @param bound a value the attribute must exceed
         */
        public DatQuery greaterThan(long bound) {
            return checked(new Binary(Op.GT, attr, integer(bound), 0));
        }

        /**
         * {@return {@code name < bound}}
         *
         * @param bound a value the attribute must stay below
         */
        public DatQuery lessThan(long bound) {
            return checked(new Binary(Op.LT, attr, integer(bound), 0));
        }

        /**
         * {@return {@code (name & mask) != 0}: at least one of the bits is set}
         *
         * @param mask bits of a flag attribute, such as {@code DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN}
         */
        public DatQuery hasAnyBits(long mask) {
            return checked(new Binary(Op.NE, new Binary(Op.BIT_AND, attr, hex(mask), 0), integer(0), 0));
        }

        /**
         * {@return {@code (name & mask) == mask}: every one of the bits is set}
         *
         * @param mask bits of a flag attribute
         */
        public DatQuery hasAllBits(long mask) {
            return checked(new Binary(Op.EQ, new Binary(Op.BIT_AND, attr, hex(mask), 0), hex(mask), 0));
        }

        private static QueryExpr literal(Object value) {
            return switch (Objects.requireNonNull(value, "value")) {
                case Integer i -> integer(i);
                case Long l -> integer(l);
                case Boolean b -> new QueryExpr.BoolLit(b, 0);
                case String s -> new QueryExpr.StrLit(s, 0);
                case Enum<?> e -> new QueryExpr.Symbol(e.name(), 0);
                default -> throw new IllegalArgumentException("a query compares integers, booleans, strings and enum"
                        + " constants, not " + value.getClass().getName());
            };
        }

        private static QueryExpr integer(long value) {
            return new QueryExpr.IntLit(value, Long.toString(value), 0);
        }

        private static QueryExpr hex(long mask) {
            return new QueryExpr.IntLit(mask, mask < 0 ? Long.toString(mask) : "0x" + Long.toHexString(mask), 0);
        }

        private DatQuery checked(QueryExpr condition) {
            QueryChecker.checkCondition(condition, QueryExpr.render(condition));
            return new DatQuery(condition);
        }

        /** {@return the attribute's name} */
        @Override
        public String toString() {
            return attr.attribute().name();
        }
    }
}
