// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.registry.QueryExpr.Attr;
import dat.registry.QueryExpr.Binary;
import dat.registry.QueryExpr.BoolLit;
import dat.registry.QueryExpr.IntLit;
import dat.registry.QueryExpr.Not;
import dat.registry.QueryExpr.StrLit;
import dat.registry.QueryExpr.Symbol;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Evaluates a checked query tree against one IA's attribute values and, when it is false, says why, in the
 * manner of libfabric's {@code util_attr.c}: which attribute, what was required, what the IA has.
 *
 * <p>Explanations never short-circuit: every failing conjunct of {@code &&} is reported, and a failed
 * {@code ||} reports every alternative, since the user needs all of them to fix a query or a configuration.
 */
final class QueryEvaluator {

    private final Map<String, Object> values;

    /**
     * @param values the IA's attribute values, from {@link QueryAttributes#valuesOf}
     */
    QueryEvaluator(Map<String, Object> values) {
        this.values = values;
    }

    /**
     * {@return whether the IA satisfies {@code condition}}
     *
     * @param condition a tree that passed {@link QueryChecker#checkCondition}
     */
    boolean test(QueryExpr condition) {
        return truth(value(condition));
    }

    /**
     * {@return why the IA does not satisfy {@code condition}, one reason per failing conjunct; empty when it does}
     *
     * @param condition a checked tree
     */
    List<String> explain(QueryExpr condition) {
        List<String> reasons = new ArrayList<>();
        if (!test(condition)) {
            failures(condition, reasons);
        }
        return reasons;
    }

    private void failures(QueryExpr expr, List<String> reasons) {
        switch (expr) {
            case Binary b when b.op() == QueryExpr.Op.AND -> {
                for (QueryExpr conjunct : List.of(b.left(), b.right())) {
                    if (!test(conjunct)) {
                        failures(conjunct, reasons);
                    }
                }
            }
            case Binary b when b.op() == QueryExpr.Op.OR -> {
                List<String> alternatives = new ArrayList<>();
                alternatives(b, alternatives);
                StringBuilder sb = new StringBuilder("all alternatives failed:");
                for (int i = 0; i < alternatives.size(); i++) {
                    sb.append(i == 0 ? " (" : "; (").append(i + 1).append(") ").append(alternatives.get(i));
                }
                reasons.add(sb.toString());
            }
            case Attr a when value(a) instanceof Boolean -> reasons.add(a.attribute().name() + " is false");
            case Attr a -> reasons.add(a.attribute().name() + " is 0");
            case Binary b when !b.op().isComparison() -> reasons.add(QueryExpr.render(b) + " is 0" + actuals(b, ": "));
            default -> reasons.add(QueryExpr.render(expr) + " failed" + actuals(expr, ": "));
        }
    }

    /** Flattens nested {@code ||} so {@code a || b || c} lists three alternatives, not two. */
    private void alternatives(QueryExpr expr, List<String> out) {
        if (expr instanceof Binary b && b.op() == QueryExpr.Op.OR) {
            alternatives(b.left(), out);
            alternatives(b.right(), out);
        } else {
            List<String> reasons = new ArrayList<>();
            failures(expr, reasons);
            out.add(String.join(" and ", reasons));
        }
    }

    /**
     * @return {@code ": actual 256"} for one attribute, {@code ": actual a = 1, b = 2"} for several, {@code ""}
     *     for none; integers in hex when the expression works on bits
     */
    private String actuals(QueryExpr expr, String prefix) {
        Set<Attr> attrs = new LinkedHashSet<>();
        boolean[] bits = {false};
        collect(expr, attrs, bits);
        if (attrs.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(prefix).append("actual ");
        if (attrs.size() == 1) {
            return sb.append(format(value(attrs.iterator().next()), bits[0])).toString();
        }
        String separator = "";
        for (Attr a : attrs) {
            sb.append(separator).append(a.attribute().name()).append(" = ").append(format(value(a), bits[0]));
            separator = ", ";
        }
        return sb.toString();
    }

    private static void collect(QueryExpr expr, Set<Attr> attrs, boolean[] bits) {
        switch (expr) {
            // Column differs between occurrences, so identity is by attribute, keeping the first occurrence.
            case Attr a -> {
                if (attrs.stream().noneMatch(seen -> seen.attribute().equals(a.attribute()))) {
                    attrs.add(a);
                }
            }
            case IntLit i -> bits[0] |= i.text().regionMatches(true, 0, "0x", 0, 2);
            case Not n -> collect(n.operand(), attrs, bits);
            case Binary b -> {
                bits[0] |= b.op() == QueryExpr.Op.BIT_AND || b.op() == QueryExpr.Op.BIT_OR;
                collect(b.left(), attrs, bits);
                collect(b.right(), attrs, bits);
            }
            case Symbol s -> {
            }
            case BoolLit b -> {
            }
            case StrLit s -> {
            }
        }
    }

    private static String format(Object value, boolean hex) {
        return switch (value) {
            case Long l when hex && l >= 0 -> "0x" + Long.toHexString(l);
            case String s -> {
                StringBuilder sb = new StringBuilder();
                QueryExpr.quote(s, sb);
                yield sb.toString();
            }
            case Enum<?> e -> e.name();
            default -> String.valueOf(value);
        };
    }

    private Object value(QueryExpr expr) {
        return switch (expr) {
            case Attr a -> values.get(a.attribute().name());
            case Symbol s -> s.name();
            case IntLit i -> i.value();
            case BoolLit b -> b.value();
            case StrLit s -> s.value();
            case Not n -> !truth(value(n.operand()));
            case Binary b -> binary(b);
        };
    }

    private Object binary(Binary b) {
        return switch (b.op()) {
            // Both sides are evaluated, but there are no side effects, so this is only a matter of cost.
            case OR -> truth(value(b.left())) || truth(value(b.right()));
            case AND -> truth(value(b.left())) && truth(value(b.right()));
            case EQ -> same(value(b.left()), value(b.right()));
            case NE -> !same(value(b.left()), value(b.right()));
            case LT -> integer(b.left()) < integer(b.right());
            case LE -> integer(b.left()) <= integer(b.right());
            case GT -> integer(b.left()) > integer(b.right());
            case GE -> integer(b.left()) >= integer(b.right());
            case BIT_OR -> integer(b.left()) | integer(b.right());
            case BIT_AND -> integer(b.left()) & integer(b.right());
        };
    }

    private long integer(QueryExpr expr) {
        return (Long) value(expr);
    }

    /** Enums compare by constant name, so a bare word or a string can name one. */
    private static boolean same(Object left, Object right) {
        if (left instanceof Enum<?> e) {
            left = e.name();
        }
        if (right instanceof Enum<?> e) {
            right = e.name();
        }
        return Objects.equals(left, right);
    }

    /** C's truth: an integer is true when it is not zero. */
    private static boolean truth(Object value) {
        return value instanceof Boolean b ? b : (Long) value != 0;
    }
}
