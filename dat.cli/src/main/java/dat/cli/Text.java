// SPDX-License-Identifier: Apache-2.0
package dat.cli;

/**
 * Makes text that a provider, a file or the system supplied safe to print on one line of a terminal: every control
 * or format character (a newline that would start a forged row, an ANSI escape that would move the cursor, a
 * bidirectional override that would reorder a line, DEL and the C1 controls, the Unicode line separators, a lone
 * surrogate) is written as a visible escape. The registry validates names where they enter; this is the command's
 * own defence for every string it did not write itself, in tables, listings, messages and (through {@link Json})
 * JSON.
 */
final class Text {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Text() {
    }

    /**
     * {@return {@code value} as one printable line: {@code \n}, {@code \r} and {@code \t} as themselves escaped,
     * other unsafe characters as {@code \xNN} or {@code \}{@code uNNNN}; {@code "null"} for {@code null}}
     *
     * @param value a string from outside the command, or any object whose text is
     */
    static String safe(Object value) {
        String s = String.valueOf(value);
        int first = 0;
        while (first < s.length() && !unsafe(s, first)) {
            first++;
        }
        if (first == s.length()) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length() + 16).append(s, 0, first);
        for (int i = first; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!unsafe(s, i)) {
                sb.append(c);
            } else if (Character.isHighSurrogate(c) || Character.isLowSurrogate(c)) {
                unicode(sb, c);
            } else {
                switch (c) {
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x100) {
                            sb.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                        } else {
                            unicode(sb, c);
                        }
                    }
                }
            }
        }
        return sb.toString();
    }

    /**
     * {@return whether the character at {@code i} must not reach a terminal as it is: a control (C0, DEL, C1), a
     * format character (bidirectional controls, zero-width characters), a line or paragraph separator, or half of a
     * surrogate pair without its other half}
     *
     * @param s the text
     * @param i an index into it
     */
    static boolean unsafe(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR;
    }

    /**
     * Appends {@code c} as a JSON-style {@code \}{@code uNNNN} escape.
     *
     * @param sb where to append
     * @param c the character
     */
    static void unicode(StringBuilder sb, char c) {
        sb.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                .append(HEX[c & 0xf]);
    }
}
