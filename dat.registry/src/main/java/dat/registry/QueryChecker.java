// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.registry.QueryAttributes.Kind;
import dat.registry.QueryExpr.Attr;
import dat.registry.QueryExpr.Binary;
import dat.registry.QueryExpr.BoolLit;
import dat.registry.QueryExpr.IntLit;
import dat.registry.QueryExpr.Not;
import dat.registry.QueryExpr.StrLit;
import dat.registry.QueryExpr.Symbol;
import java.util.Arrays;
import java.util.List;

/**
 * Type-checks a query tree before it is evaluated, so that a query either fails at once with a column or is
 * certain to evaluate on any IA: unknown names, maps, comparisons of different kinds and ordering of
 * non-integers are rejected here.
 */
final class QueryChecker {

    /** The text errors refer to. */
    private final String text;

    private QueryChecker(String text) {
        this.text = text;
    }

    /**
     * Checks a whole query, which must be a condition.
     *
     * @param expr the tree
     * @param text the text it was parsed from, or its rendering when built through the Java API
     * @throws DatQuerySyntaxException on the first error
     */
    static void checkCondition(QueryExpr expr, String text) {
        QueryChecker checker = new QueryChecker(text);
        Kind kind = checker.kind(expr);
        if (!kind.isCondition()) {
            throw checker.error(expr.column(), "a query must be a condition, but " + QueryExpr.render(expr) + " is "
                    + kind.description());
        }
    }

    private Kind kind(QueryExpr expr) {
        return switch (expr) {
            case Attr a -> {
                if (a.attribute().kind() == Kind.MAP) {
                    throw error(a.column(), a.attribute().name() + " is a map of strings; queries cannot use it");
                }
                yield a.attribute().kind();
            }
            case Symbol s -> throw unknownAttribute(s);
            case IntLit i -> Kind.INTEGER;
            case BoolLit b -> Kind.BOOLEAN;
            case StrLit s -> Kind.STRING;
            case Not n -> {
                requireCondition(n.operand(), "!");
                yield Kind.BOOLEAN;
            }
            case Binary b -> binary(b);
        };
    }

    private Kind binary(Binary b) {
        return switch (b.op()) {
            case OR, AND -> {
                requireCondition(b.left(), b.op().symbol());
                requireCondition(b.right(), b.op().symbol());
                yield Kind.BOOLEAN;
            }
            case BIT_OR, BIT_AND, LT, LE, GT, GE -> {
                requireInteger(b.left(), b);
                requireInteger(b.right(), b);
                yield b.op().isComparison() ? Kind.BOOLEAN : Kind.INTEGER;
            }
            case EQ, NE -> {
                equality(b);
                yield Kind.BOOLEAN;
            }
        };
    }

    private void equality(Binary b) {
        if (isEnumAttr(b.left()) || isEnumAttr(b.right())) {
            Attr attr = (Attr) (isEnumAttr(b.left()) ? b.left() : b.right());
            QueryExpr other = attr == b.left() ? b.right() : b.left();
            switch (other) {
                case Symbol s -> requireConstant(attr, s.name(), s.column());
                case StrLit s -> requireConstant(attr, s.value(), s.column());
                case Attr a when a.attribute().enumType() == attr.attribute().enumType() -> {
                }
                default -> throw error(b.column(), "cannot compare " + describe(attr) + " with " + describe(other)
                        + "; compare it with one of " + constants(attr));
            }
            return;
        }
        Kind left = kind(b.left());
        Kind right = kind(b.right());
        if (left != right) {
            throw error(b.column(), "cannot compare " + QueryExpr.render(b.left()) + " (" + left.description()
                    + ") with " + QueryExpr.render(b.right()) + " (" + right.description() + ")");
        }
    }

    private static boolean isEnumAttr(QueryExpr expr) {
        return expr instanceof Attr a && a.attribute().kind() == Kind.ENUM;
    }

    private void requireConstant(Attr attr, String name, int column) {
        List<String> names = constantNames(attr);
        if (!names.contains(name)) {
            throw error(column, name + " is not a value of " + attr.attribute().name() + "; expected one of "
                    + constants(attr) + QueryAttributes.didYouMean(QueryAttributes.suggestions(name, names)));
        }
    }

    private static List<String> constantNames(Attr attr) {
        return Arrays.stream(attr.attribute().enumType().getEnumConstants()).map(c -> ((Enum<?>) c).name()).toList();
    }

    private static String constants(Attr attr) {
        return String.join(", ", constantNames(attr));
    }

    private void requireCondition(QueryExpr operand, String operator) {
        Kind kind = kind(operand);
        if (!kind.isCondition()) {
            throw error(operand.column(), operator + " needs a condition, but " + QueryExpr.render(operand) + " is "
                    + kind.description());
        }
    }

    private void requireInteger(QueryExpr operand, Binary b) {
        Kind kind = kind(operand);
        if (kind != Kind.INTEGER) {
            throw error(b.column(), b.op().symbol() + " needs integers, but " + QueryExpr.render(operand) + " is "
                    + kind.description());
        }
    }

    private String describe(QueryExpr expr) {
        return QueryExpr.render(expr) + " (" + (expr instanceof Symbol ? "an unknown name" : kind(expr).description())
                + ")";
    }

    private DatQuerySyntaxException unknownAttribute(Symbol s) {
        return error(s.column(), "unknown attribute '" + s.name() + "'" + QueryAttributes.didYouMean(
                QueryAttributes.suggestions(s.name(), QueryAttributes.all().keySet())));
    }

    private DatQuerySyntaxException error(int column, String reason) {
        return new DatQuerySyntaxException(text, column, column > 0 ? "column " + column + ": " + reason : reason);
    }
}
