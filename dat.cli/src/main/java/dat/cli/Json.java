// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.registry.SafeText;
import java.net.InetAddress;
import java.util.Collection;
import java.util.Map;

/**
 * A minimal JSON writer for the command's {@code --json} output: maps, collections, strings, numbers, booleans,
 * enums (by name), addresses and {@code null}. Enough for machine-readable listings without a library.
 */
final class Json {

    private Json() {
    }

    /**
     * {@return the JSON text of {@code value}}
     *
     * @param value the value to write
     */
    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object value, int depth) {
        switch (value) {
            case null -> sb.append("null");
            case String s -> quote(sb, s);
            case Boolean b -> sb.append(b);
            case Double d -> sb.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
            case Float f -> write(sb, (double) f, depth);
            case Number n -> sb.append(n);
            case Enum<?> e -> quote(sb, e.name());
            case InetAddress a -> quote(sb, a.getHostAddress());
            case Map<?, ?> map -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    sb.append(first ? "\n" : ",\n").append("  ".repeat(depth + 1));
                    first = false;
                    quote(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    write(sb, e.getValue(), depth + 1);
                }
                sb.append(first ? "}" : "\n" + "  ".repeat(depth) + "}");
            }
            case Collection<?> list -> {
                sb.append('[');
                boolean first = true;
                for (Object item : list) {
                    sb.append(first ? "\n" : ",\n").append("  ".repeat(depth + 1));
                    first = false;
                    write(sb, item, depth + 1);
                }
                sb.append(first ? "]" : "\n" + "  ".repeat(depth) + "]");
            }
            default -> quote(sb, value.toString());
        }
    }

    /**
     * Writes a JSON string. RFC 8259 requires the escapes below U+0020; every other character {@link Text#unsafe}
     * finds (DEL, the C1 controls with their 8-bit CSI, format characters, the line separators JavaScript reads as
     * line ends, a lone surrogate) is escaped too, so a provider's string shows no terminal the same tricks through
     * {@code --json} that the tables refuse it.
     */
    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || Text.unsafe(s, i)) {
                        SafeText.unicodeEscape(sb, c);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
