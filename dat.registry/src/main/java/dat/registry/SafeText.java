// SPDX-License-Identifier: Apache-2.0
package dat.registry;

/**
 * Names checked where they enter the registry, and text from outside made safe to print.
 *
 * <p>A name that a provider, a {@code dat.conf} line or a user hands in ends up in {@code dat info}'s table, in log
 * lines and in exception messages. A newline or an ANSI escape in it would forge a row of that table, a bidi
 * override would make it read backwards and a zero-width character or a byte-order mark would make two different
 * names look equal, so names with any of them are refused, and every reason that quotes outside text escapes it.
 *
 * <p>{@link #escape(String, int)} is also the {@code dat} command's escaper for everything it prints that it did not
 * write itself: one rule for what is printable, one form of escape, wherever outside text is shown.
 */
public final class SafeText {

    /** The longest provider or IA name accepted ({@code DAT_NAME_MAX_LENGTH}). */
    static final int NAME_MAX_LENGTH = DatConf.IA_NAME_MAX_LENGTH;

    /** Outside text a reason quotes is cut to this many characters, so one hostile message cannot flood a log. */
    static final int QUOTE_MAX_LENGTH = 200;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private SafeText() {
    }

    /**
     * Checks a provider name: not empty, at most {@link #NAME_MAX_LENGTH} characters, every code point printable and
     * none of them a space ({@code dat.providers} separates names with spaces).
     *
     * @param name the name
     * @return {@code null} when the name is fine, else why not, quoting it escaped
     */
    static String nameProblem(String name) {
        return problem(name, NAME_MAX_LENGTH, Spaces.NONE);
    }

    /**
     * Checks an IA name: as {@link #nameProblem}, except that a plain space (U+0020) may stand between other
     * characters, as a quoted {@code dat.conf} field allows; no other kind of space, which would pass for one.
     *
     * @param name the name
     * @return {@code null} when the name is fine, else why not, quoting it escaped
     */
    static String iaNameProblem(String name) {
        return problem(name, NAME_MAX_LENGTH, Spaces.INNER_PLAIN);
    }

    /**
     * Checks text that is not a name (a version, a parameter string): every code point printable, spaces allowed.
     *
     * @param text the text
     * @param maxLength the longest accepted
     * @return {@code null} when the text is fine, else why not
     */
    static String textProblem(String text, int maxLength) {
        return problem(text, maxLength, Spaces.ANY);
    }

    /** Which spaces a checked text may hold. */
    private enum Spaces { NONE, INNER_PLAIN, ANY }

    private static String problem(String text, int maxLength, Spaces spaces) {
        if (text.isEmpty()) {
            return "is empty";
        }
        if (text.length() > maxLength) {
            return "is " + text.length() + " characters long; at most " + maxLength + " are allowed";
        }
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            boolean space = Character.isSpaceChar(c);
            boolean allowedSpace = spaces == Spaces.ANY || (spaces == Spaces.INNER_PLAIN && c == ' ' && i > 0
                    && i < text.length() - 1);
            if (!isPrintable(c) || (space && !allowedSpace)) {
                return quote(text) + " contains " + codePoint(c) + " at character " + (i + 1) + hint(c);
            }
            i += Character.charCount(c);
        }
        return null;
    }

    private static String hint(int c) {
        return c == 0xFEFF ? " (a byte-order mark; save the file as UTF-8 without one)" : "";
    }

    /**
     * {@return whether a code point shows as itself: not a control, format (bidi overrides, zero-width, byte-order
     * mark), line or paragraph separator, surrogate, private-use or unassigned character}
     *
     * @param c the code point
     */
    public static boolean isPrintable(int c) {
        return switch (Character.getType(c)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                 Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED -> false;
            default -> true;
        };
    }

    /**
     * {@return {@code U+001B (ESCAPE)}: the code point and its Unicode name, for a reason}
     *
     * @param c the code point
     */
    static String codePoint(int c) {
        String name = Character.getName(c);
        return String.format("U+%04X", c) + (name == null ? "" : " (" + name + ")");
    }

    /**
     * Makes outside text safe to print on one line: every code point {@link #isPrintable} rejects becomes a visible
     * escape ({@code \n}, {@code \r}, {@code \t}, {@code \xNN} below U+0100, else {@code \}{@code uNNNN} for each
     * of its UTF-16 units), and text beyond {@link #QUOTE_MAX_LENGTH} characters is cut.
     *
     * @param text the text, {@code null} printing as {@code null}
     * @return the escaped text
     */
    public static String escape(String text) {
        return escape(text, QUOTE_MAX_LENGTH);
    }

    /**
     * {@link #escape(String)} with another length limit.
     *
     * @param text the text, {@code null} printing as {@code null}
     * @param maxLength the characters kept; {@link Integer#MAX_VALUE} keeps them all
     * @return the escaped text
     */
    public static String escape(String text, int maxLength) {
        if (text == null) {
            return "null";
        }
        int end = Math.min(text.length(), maxLength);
        int first = 0;
        while (first < end && isPrintable(text.codePointAt(first))) {
            first += Character.charCount(text.codePointAt(first));
        }
        if (first >= text.length()) {
            return text;
        }
        StringBuilder sb = new StringBuilder(end + 16).append(text, 0, Math.min(first, end));
        for (int i = first; i < end; ) {
            int c = text.codePointAt(i);
            int units = Character.charCount(c);
            if (isPrintable(c)) {
                sb.appendCodePoint(c);
            } else {
                for (int u = i; u < i + units && u < text.length(); u++) {
                    escapeUnit(sb, text.charAt(u));
                }
            }
            i += units;
        }
        if (text.length() > end) {
            sb.append("... (").append(text.length() - end).append(" more characters)");
        }
        return sb.toString();
    }

    private static void escapeUnit(StringBuilder sb, char c) {
        switch (c) {
            case '\n' -> sb.append("\\n");
            case '\r' -> sb.append("\\r");
            case '\t' -> sb.append("\\t");
            default -> {
                if (c < 0x100) {
                    sb.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                } else {
                    unicodeEscape(sb, c);
                }
            }
        }
    }

    /**
     * Appends {@code c} as {@code \}{@code uNNNN}, the escape JSON and Java share.
     *
     * @param sb where to append
     * @param c the UTF-16 unit
     */
    public static void unicodeEscape(StringBuilder sb, char c) {
        sb.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                .append(HEX[c & 0xf]);
    }

    /**
     * {@return the text escaped and in double quotes}
     *
     * @param text the text
     */
    static String quote(String text) {
        return "\"" + escape(text) + "\"";
    }
}
