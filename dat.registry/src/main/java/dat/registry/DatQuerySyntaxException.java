// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.util.Objects;

/**
 * A selection query that cannot be used: bad syntax, an unknown attribute or a type mismatch.
 *
 * <p>It is a {@link DatException} ({@link DatReturn#INVALID_PARAMETER}, {@link DatReturnSubtype#INVALID_ARG1}:
 * the query is the first argument of {@link DatQuery#parse} and {@link DatRegistry#select(String)}) rather
 * than an {@link IllegalArgumentException}, because the registry is control path and the project's rule is
 * that the control path throws one unchecked exception type: a command-line tool catches {@code DatException}
 * and prints its message, whatever went wrong.
 *
 * <p>The message shows the query with a caret under the offending column:
 * <pre>
 * DAT_INVALID_PARAMETER/INVALID_ARG1: column 1: unknown attribute 'srq_suported'; did you mean srq_supported?
 *   srq_suported &amp;&amp; optimal_buffer_alignment &lt;= 256
 *   ^
 * </pre>
 */
public final class DatQuerySyntaxException extends DatException {

    private static final long serialVersionUID = 1L;

    /** The query text as given. */
    private final String query;
    /** 1-based column, 0 when the query was built through the Java API and has no text position. */
    private final int column;
    /** The column, what was wrong and what was expected, without the picture. */
    private final String reason;

    /**
     * Creates the exception of a query that does not parse.
     *
     * @param query the query text, or the rendering of a query built through the Java API
     * @param column the 1-based column of the fault, or 0 when it has no position
     * @param reason what is wrong and what was expected, starting with {@code column N: } when there is a column
     */
    public DatQuerySyntaxException(String query, int column, String reason) {
        super(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, picture(query, column, reason));
        this.query = Objects.requireNonNull(query, "query");
        this.column = column;
        this.reason = reason;
    }

    /** Characters of the query the picture shows around the column: a long query is shown in part. */
    private static final int WINDOW = 100;

    private static String picture(String query, int column, String reason) {
        if (column <= 0) {
            return reason + " in query: " + SafeText.escape(query, WINDOW);
        }
        int at = Math.min(column - 1, query.length());
        int start = Math.max(0, Math.min(at - WINDOW / 2, query.length() - WINDOW));
        int end = Math.min(query.length(), start + WINDOW);
        StringBuilder line = new StringBuilder(start > 0 ? "..." : "");
        int caret = at - start + line.length();
        for (int i = start; i < end; i++) {
            // One column per character, so the caret stays under it: a tab or line break shows as a space, any
            // other character that would not print (an escape sequence, a bidi override) as '?'.
            char c = query.charAt(i);
            line.append(Character.isWhitespace(c) ? ' ' : SafeText.isPrintable(c) ? c : '?');
        }
        if (end < query.length()) {
            line.append("...");
        }
        return reason + "\n  " + line + "\n  " + " ".repeat(caret) + "^";
    }

    /** {@return the query text the error is about} */
    public String query() {
        return query;
    }

    /** {@return the 1-based column of the fault, or 0 when the query was built through the Java API} */
    public int column() {
        return column;
    }

    /** {@return {@code column N: } (when there is a column), what is wrong and what was expected; no picture} */
    public String reason() {
        return reason;
    }
}
