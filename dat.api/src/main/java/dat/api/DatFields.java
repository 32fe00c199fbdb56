// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Views an attribute record under DAT's own field names, in declaration order: {@code srqEpPzDifferenceSupported}
 * becomes {@code srq_ep_pz_difference_supported}. Used by selection queries and {@code dat info -v}.
 */
public final class DatFields {

    private DatFields() {
    }

    /**
     * {@return an unmodifiable map from DAT field name to value; enums stay enums, maps stay maps}
     *
     * @param attributes a record of this package, such as {@link DatProviderAttr} or {@link DatIaAttr}
     */
    public static Map<String, Object> of(Record attributes) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (RecordComponent c : attributes.getClass().getRecordComponents()) {
            try {
                fields.put(datName(c.getName()), c.getAccessor().invoke(attributes));
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read " + c.getName() + " of " + attributes, e);
            }
        }
        return Collections.unmodifiableMap(fields);
    }

    /**
     * {@return the DAT spelling, {@code max_iov_segments_per_dto}}
     *
     * @param javaName a record component name such as {@code maxIovSegmentsPerDto}
     */
    public static String datName(String javaName) {
        StringBuilder sb = new StringBuilder(javaName.length() + 8);
        for (int i = 0; i < javaName.length(); i++) {
            char ch = javaName.charAt(i);
            if (Character.isUpperCase(ch)) {
                sb.append('_').append(Character.toLowerCase(ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }
}
