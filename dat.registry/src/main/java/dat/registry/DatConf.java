// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.api.Dat;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A static registry file in uDAPL's {@code dat.conf} format, parsed without side effects.
 *
 * <p>One entry per line, eight whitespace-separated fields:
 * <pre>
 * # ia_name   api_version thread_safety default  library  provider_version ia_params platform_params
 * loopback0   u1.2        threadsafe    default  loopback dapl.1.2         ""        ""
 * ofa-v2-ib0  u1.2        nonthreadsafe nondefault my.vendor.VerbsProvider dapl.1.2 "mlx5_0 1" ""
 * </pre>
 * <ul>
 *   <li>{@code api_version}: {@code u} (uDAPL) or {@code k} (kDAPL), then {@code major.minor}; only major
 *       version 1 is accepted, since jDAT implements DAT 1.2.
 *   <li>{@code thread_safety}: {@code threadsafe} or {@code nonthreadsafe}; {@code default}: {@code default} or
 *       {@code nondefault}.
 *   <li>library: where uDAPL names a shared object, jDAT names a provider, either by its
 *       {@link dat.spi.DatProvider#name()} or by the fully qualified name of a class implementing it.
 *   <li>{@code provider_version}: {@code <id>.<major>.<minor>}, for example {@code dapl.1.2}.
 *   <li>{@code #} starts a comment that runs to the end of the line, except inside quotes. A field may be
 *       double-quoted to hold spaces or {@code #}; inside quotes {@code \\} and {@code \"} are the only
 *       escapes, and {@code ""} is an empty field. Outside quotes a backslash is an ordinary character, so
 *       Windows-style paths need no quoting.
 * </ul>
 *
 * <p>The file is UTF-8. IA names and the library field are names: printable, without spaces (an IA name may hold
 * plain spaces between other characters, in quotes), at most
 * {@value #IA_NAME_MAX_LENGTH} characters; no field may hold a control character, a format character (a byte-order
 * mark, a bidi override, a zero-width space) or another non-printable code point, since names end up in tables and
 * logs where such characters forge or hide text.
 *
 * <p>A malformed line is skipped and reported as a {@link Diagnostic} naming the file, the line and the fault (a
 * character by its code point, a byte that is not UTF-8 by its value); a byte that is not UTF-8 inside a comment is
 * reported and the line still counts. A later entry with an IA name already seen is reported too and loses to the
 * first, as in uDAPL's {@code dat_sr_insert}. Parsing never throws for bad content, so one typo cannot hide the
 * other entries.
 *
 * @param fileName the name diagnostics use for the file
 * @param entries the valid entries, in file order, IA names unique
 * @param diagnostics what was wrong, in file order
 */
public record DatConf(String fileName, List<Entry> entries, List<Diagnostic> diagnostics) {

    /** The longest IA name DAT allows ({@code DAT_NAME_MAX_LENGTH}). */
    public static final int IA_NAME_MAX_LENGTH = 256;

    /** The longest {@code ia_params} or {@code platform_params} accepted. */
    public static final int PARAMS_MAX_LENGTH = 4096;

    /** Number of fields of an entry line. */
    private static final int FIELD_COUNT = 8;

    /** Diagnostics quote at most this much of a line's text, so one hostile line cannot flood a log. */
    private static final int MESSAGE_MAX_LENGTH = 1000;

    /** Makes the lists immutable. */
    public DatConf {
        Objects.requireNonNull(fileName, "fileName");
        entries = List.copyOf(entries);
        diagnostics = List.copyOf(diagnostics);
    }

    /**
     * One valid line of the file.
     *
     * @param iaName the IA name {@code dat_ia_open} takes
     * @param apiVersion the DAT API the entry was written for; {@link Version#id()} is {@code u} or {@code k}
     * @param threadSafe {@code threadsafe} rather than {@code nonthreadsafe}
     * @param isDefault {@code default} rather than {@code nondefault}
     * @param library the provider name or provider class name
     * @param providerVersion the provider version, for example {@code dapl.1.2}
     * @param iaParams the {@code ia_params} field, passed to the provider
     * @param platformParams the {@code platform_params} field
     * @param line the 1-based line number the entry came from
     */
    @SuppressWarnings("InvalidParam") // "threadsafe" above is dat.conf's keyword, not a misspelt threadSafe
    public record Entry(String iaName, Version apiVersion, boolean threadSafe, boolean isDefault, String library,
                        Version providerVersion, String iaParams, String platformParams, int line) {

        /** Checks that nothing is null. */
        public Entry {
            Objects.requireNonNull(iaName, "iaName");
            Objects.requireNonNull(apiVersion, "apiVersion");
            Objects.requireNonNull(library, "library");
            Objects.requireNonNull(providerVersion, "providerVersion");
            Objects.requireNonNull(iaParams, "iaParams");
            Objects.requireNonNull(platformParams, "platformParams");
        }

        /** {@return whether the entry is for kDAPL (kernel consumers), which a Java process cannot use} */
        public boolean isKernel() {
            return apiVersion.id().equals("k");
        }
    }

    /**
     * A version as {@code dat.conf} writes it: {@code u1.2} for an API version, {@code dapl.1.2} for a
     * provider version.
     *
     * @param id {@code u}/{@code k} for an API version, the provider id otherwise
     * @param major the major version
     * @param minor the minor version
     */
    public record Version(String id, int major, int minor) {

        /** Checks that nothing is null. */
        public Version {
            Objects.requireNonNull(id, "id");
        }
    }

    /**
     * A problem found in the file. Its message ends with what became of the line: {@code line skipped},
     * {@code this entry is ignored}, or {@code ignored} for a fault in a comment; a problem with the whole file (it
     * cannot be read, it is not a regular file) has line 0.
     *
     * @param fileName the file
     * @param line the 1-based line number, 0 for the whole file
     * @param message what is wrong, safe to print (outside text in it is escaped)
     */
    public record Diagnostic(String fileName, int line, String message) {

        /** Checks that nothing is null. */
        public Diagnostic {
            Objects.requireNonNull(fileName, "fileName");
            Objects.requireNonNull(message, "message");
        }

        /**
         * {@return {@code file:line: message}, the form compilers use so editors can jump to it; {@code file: message}
         * for the whole file}
         */
        @Override
        public String toString() {
            return fileName + (line > 0 ? ":" + line : "") + ": " + message;
        }
    }

    /**
     * Parses a whole file. Line ends may be {@code \n}, {@code \r\n} or {@code \r}.
     *
     * @param fileName the name to use in diagnostics, usually the path
     * @param reader the content; read to the end, not closed
     * @return the entries and diagnostics
     * @throws UncheckedIOException when reading fails
     */
    public static DatConf parse(String fileName, Reader reader) {
        Lines lines = new Lines(Objects.requireNonNull(fileName, "fileName"));
        BufferedReader buffered = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        try {
            for (String line = buffered.readLine(); line != null; line = buffered.readLine()) {
                lines.add(line, -1, 0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + fileName, e);
        }
        return lines.result();
    }

    /**
     * Parses a whole file from its bytes, as UTF-8. A byte sequence that is not UTF-8 costs only its own line, and
     * only when it is outside a comment; either way the diagnostic names the line, the column and the byte.
     *
     * @param fileName the name to use in diagnostics, usually the path
     * @param content the file's bytes; line ends may be {@code \n}, {@code \r\n} or {@code \r}
     * @return the entries and diagnostics
     */
    public static DatConf parse(String fileName, byte[] content) {
        Lines lines = new Lines(Objects.requireNonNull(fileName, "fileName"));
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        int start = 0;
        while (start < content.length) {
            int end = start;
            while (end < content.length && content[end] != '\n' && content[end] != '\r') {
                end++;
            }
            decodeLine(decoder, content, start, end, lines);
            start = end + (end + 1 < content.length && content[end] == '\r' && content[end + 1] == '\n' ? 2 : 1);
        }
        return lines.result();
    }

    /** Decodes one line, each malformed sequence as U+FFFD, and hands it on with where the first one was. */
    private static void decodeLine(CharsetDecoder decoder, byte[] content, int start, int end, Lines lines) {
        ByteBuffer in = ByteBuffer.wrap(content, start, end - start);
        CharBuffer out = CharBuffer.allocate(end - start);
        int badColumn = -1;
        int badByte = 0;
        decoder.reset();
        while (true) {
            CoderResult result = decoder.decode(in, out, true);
            if (!result.isError()) {
                break;
            }
            if (badColumn < 0) {
                badColumn = out.position();
                badByte = in.get(in.position()) & 0xff;
            }
            in.position(in.position() + result.length());
            out.put('\uFFFD');
        }
        decoder.flush(out);
        lines.add(out.flip().toString(), badColumn, badByte);
    }

    /** The entries and diagnostics of the lines read so far. */
    private static final class Lines {
        private final String fileName;
        private final List<Entry> entries = new ArrayList<>();
        private final List<Diagnostic> diagnostics = new ArrayList<>();
        private final Map<String, Integer> firstLineOfIa = new HashMap<>();
        private int lineNumber;

        Lines(String fileName) {
            this.fileName = fileName;
        }

        /**
         * Parses the next line.
         *
         * @param line its text
         * @param badColumn the 0-based index of the first byte sequence that was not UTF-8, or -1
         * @param badByte its first byte
         */
        void add(String line, int badColumn, int badByte) {
            lineNumber++;
            try {
                Fields fields = splitFields(line);
                String notUtf8 = badColumn < 0 ? null : String.format("column %d: byte 0x%02X is not UTF-8"
                        + " (dat.conf is read as UTF-8)", badColumn + 1, badByte);
                if (notUtf8 != null && badColumn < fields.end()) {
                    throw new LineException(notUtf8);
                }
                Entry entry = parseLine(fields.values(), lineNumber);
                if (notUtf8 != null) {
                    diagnose(notUtf8 + " in a comment; ignored");
                }
                if (entry == null) {
                    return;
                }
                Integer first = firstLineOfIa.putIfAbsent(entry.iaName(), lineNumber);
                if (first != null) {
                    diagnose("duplicate IA name " + entry.iaName() + ": already defined on line " + first
                            + "; this entry is ignored");
                } else {
                    entries.add(entry);
                }
            } catch (LineException e) {
                diagnose(e.getMessage() + "; line skipped");
            }
        }

        private void diagnose(String message) {
            diagnostics.add(new Diagnostic(fileName, lineNumber, SafeText.escape(message, MESSAGE_MAX_LENGTH)));
        }

        DatConf result() {
            return new DatConf(fileName, entries, diagnostics);
        }
    }

    /**
     * The fields of a line.
     *
     * @param values the fields, quotes resolved
     * @param end where the fields end: the index of the comment's {@code #}, or the line's length
     */
    private record Fields(List<String> values, int end) {
    }

    /** {@return the entry of the line, or {@code null} for a blank or comment-only line} */
    private static Entry parseLine(List<String> fields, int lineNumber) throws LineException {
        if (fields.isEmpty()) {
            return null;
        }
        if (fields.size() != FIELD_COUNT) {
            throw new LineException("expected " + FIELD_COUNT + " fields (ia_name api_version thread_safety default"
                    + " library provider_version ia_params platform_params) but found " + fields.size());
        }
        String iaName = fields.get(0);
        if (iaName.isEmpty()) {
            throw new LineException("empty ia_name");
        }
        requireName("ia_name", SafeText.iaNameProblem(iaName));
        Version api = parseApiVersion(fields.get(1));
        boolean threadSafe = keyword(fields.get(2), "thread_safety", "threadsafe", "nonthreadsafe");
        boolean isDefault = keyword(fields.get(3), "default", "default", "nondefault");
        String library = fields.get(4);
        if (library.isEmpty()) {
            throw new LineException("empty library (provider name or class)");
        }
        requireName("library", SafeText.nameProblem(library));
        requireText("ia_params", fields.get(6));
        requireText("platform_params", fields.get(7));
        Version providerVersion = parseProviderVersion(fields.get(5));
        return new Entry(iaName, api, threadSafe, isDefault, library, providerVersion, fields.get(6), fields.get(7),
                lineNumber);
    }

    private static void requireName(String field, String problem) throws LineException {
        if (problem != null) {
            throw new LineException(field + " " + problem);
        }
    }

    private static void requireText(String field, String value) throws LineException {
        String problem = value.isEmpty() ? null : SafeText.textProblem(value, PARAMS_MAX_LENGTH);
        if (problem != null) {
            throw new LineException(field + " " + problem);
        }
    }

    /**
     * Splits a line into fields, honouring quotes and dropping the comment.
     *
     * <p>A quote only opens a field; one inside an unquoted field, or text glued to a closing quote, is an error
     * rather than a guess, because uDAPL's own parser disagrees with shells on such input.
     */
    private static Fields splitFields(String line) throws LineException {
        List<String> fields = new ArrayList<>(FIELD_COUNT);
        int i = 0;
        int n = line.length();
        while (true) {
            while (i < n && isBlank(line.charAt(i))) {
                i++;
            }
            if (i == n || line.charAt(i) == '#') {
                return new Fields(fields, i);
            }
            StringBuilder field = new StringBuilder();
            if (line.charAt(i) == '"') {
                int open = i++;
                while (true) {
                    if (i == n) {
                        throw new LineException("unterminated quote opened at column " + (open + 1));
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        if (i == n) {
                            throw new LineException("unterminated quote opened at column " + (open + 1));
                        }
                        char escaped = line.charAt(i++);
                        if (escaped != '\\' && escaped != '"') {
                            throw new LineException("bad escape \\" + escaped + " at column " + (i - 1)
                                    + ": only \\\\ and \\\" are allowed inside quotes");
                        }
                        c = escaped;
                    }
                    field.append(c);
                }
                if (i < n && !isBlank(line.charAt(i)) && line.charAt(i) != '#') {
                    throw new LineException("unexpected '" + line.charAt(i) + "' at column " + (i + 1)
                            + " after a closing quote; separate fields with whitespace");
                }
            } else {
                while (i < n && !isBlank(line.charAt(i)) && line.charAt(i) != '#') {
                    if (line.charAt(i) == '"') {
                        throw new LineException("unexpected quote at column " + (i + 1)
                                + " inside an unquoted field; quote the whole field");
                    }
                    field.append(line.charAt(i++));
                }
            }
            fields.add(field.toString());
        }
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\f' || c == '\u000b';
    }

    private static boolean keyword(String value, String field, String yes, String no) throws LineException {
        if (value.equals(yes)) {
            return true;
        }
        if (value.equals(no)) {
            return false;
        }
        throw new LineException("bad " + field + " '" + value + "': expected " + yes + " or " + no);
    }

    private static Version parseApiVersion(String text) throws LineException {
        String expected = "expected u or k then major.minor, for example u1.2";
        if (text.isEmpty() || (text.charAt(0) != 'u' && text.charAt(0) != 'k')) {
            throw new LineException("bad api_version '" + text + "': " + expected);
        }
        int[] numbers = majorMinor(text.substring(1));
        if (numbers == null) {
            throw new LineException("bad api_version '" + text + "': " + expected);
        }
        if (numbers[0] != Dat.DAT_VERSION_MAJOR) {
            throw new LineException("api_version " + text + " is not supported: jDAT implements DAT "
                    + Dat.DAT_VERSION_MAJOR + "." + Dat.DAT_VERSION_MINOR);
        }
        return new Version(text.substring(0, 1), numbers[0], numbers[1]);
    }

    private static Version parseProviderVersion(String text) throws LineException {
        int dot = text.indexOf('.');
        int[] numbers = dot > 0 ? majorMinor(text.substring(dot + 1)) : null;
        if (numbers == null) {
            throw new LineException("bad provider_version '" + text
                    + "': expected <id>.<major>.<minor>, for example dapl.1.2");
        }
        return new Version(text.substring(0, dot), numbers[0], numbers[1]);
    }

    /** {@return {@code {major, minor}} of {@code "1.2"}, or {@code null} when it is not two decimal numbers} */
    private static int[] majorMinor(String text) {
        int dot = text.indexOf('.');
        if (dot < 0) {
            return null;
        }
        String major = text.substring(0, dot);
        String minor = text.substring(dot + 1);
        if (!isSmallNumber(major) || !isSmallNumber(minor)) {
            return null;
        }
        return new int[] {Integer.parseInt(major), Integer.parseInt(minor)};
    }

    private static boolean isSmallNumber(String text) {
        // Nine digits always fit an int, and no real version needs more.
        if (text.isEmpty() || text.length() > 9) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** What is wrong with one line; never escapes {@link #parse}. */
    private static final class LineException extends Exception {
        private static final long serialVersionUID = 1L;

        LineException(String message) {
            super(message, null, false, false);
        }
    }
}
