// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.registry.SafeText;

/**
 * Makes text that a provider, a file or the system supplied safe to print on one line of a terminal: every control
 * or format character (a newline that would start a forged row, an ANSI escape that would move the cursor, a
 * bidirectional override that would reorder a line, DEL and the C1 controls, the Unicode line separators, a lone
 * surrogate) is written as a visible escape. The registry validates names where they enter; this is the command's
 * own defence for every string it did not write itself, in tables, listings, messages and (through {@link Json})
 * JSON.
 */
final class Text {

    private Text() {
    }

    /**
     * {@return {@code value} as one printable line, escaped by the registry's {@link SafeText#escape(String, int)}
     * (the same rule and form for what the registry quotes and what the command prints); {@code "null"} for
     * {@code null}}
     *
     * @param value a string from outside the command, or any object whose text is
     */
    static String safe(Object value) {
        return SafeText.escape(String.valueOf(value), Integer.MAX_VALUE);
    }

    /**
     * {@return a multi-line report (the kit's campaign table, a failing episode's program) kept on its lines: each line
     * escaped as {@link #safe} does, and every line after the first that does not already start with a blank indented
     * by four, so no line of outside text can start at column 0 and pass for a line of the command's own}
     *
     * @param value the report; {@code \n}, {@code \r\n} and {@code \r} end its lines
     */
    static String block(Object value) {
        String[] lines = String.valueOf(value).split("\r\n|\n|\r", -1);
        StringBuilder sb = new StringBuilder(safe(lines[0]));
        for (int i = 1; i < lines.length; i++) {
            String line = safe(lines[i]);
            boolean indented = line.isEmpty() || line.charAt(0) == ' ';
            sb.append(System.lineSeparator()).append(indented ? "" : "    ").append(line);
        }
        return sb.toString();
    }

    /**
     * {@return whether the character at {@code i} must not reach a terminal as it is: a unit of a code point
     * {@link SafeText#isPrintable} rejects, or half of a surrogate pair without its other half}
     *
     * @param s the text
     * @param i an index into it
     */
    static boolean unsafe(String s, int i) {
        char c = s.charAt(i);
        if (Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1))) {
            return !SafeText.isPrintable(s.codePointAt(i - 1));
        }
        return !SafeText.isPrintable(s.codePointAt(i));
    }
}
