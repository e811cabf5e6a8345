// Rollback.java: pgjdbc's conn.rollback() after a unique violation inside a
// transaction, then the same connection is used again. Run by
// TestRollbackAfterUniqueViolation (client_rollback_test.go) in Java's
// source-file mode:
//
//   java -cp /usr/share/java/postgresql.jar Rollback.java JDBC_URL TABLE
//
// The jar is Debian's package libpgjava. The table holds the row id = 1.
// Output, one line per step, compared by the test:
//   violation 23505 / state IDLE / count 2 ids 1,3
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.postgresql.core.BaseConnection;

public class Rollback {
    public static void main(String[] args) throws Exception {
        String url = args[0], table = args[1];
        try (Connection conn = DriverManager.getConnection(url)) {
            conn.setAutoCommit(false);
            try (Statement st = conn.createStatement()) {
                st.executeUpdate("INSERT INTO " + table + " VALUES (2)");
                try {
                    st.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                    System.out.println("no violation");
                } catch (SQLException e) {
                    System.out.println("violation " + e.getSQLState());
                }
            }
            conn.rollback();
            System.out.println("state " + conn.unwrap(BaseConnection.class).getTransactionState());
            try (Statement st = conn.createStatement()) {
                st.executeUpdate("INSERT INTO " + table + " VALUES (3)");
                conn.commit();
                StringBuilder ids = new StringBuilder();
                int n = 0;
                try (ResultSet rs = st.executeQuery("SELECT id FROM " + table + " ORDER BY id")) {
                    while (rs.next()) {
                        ids.append(n++ == 0 ? "" : ",").append(rs.getInt(1));
                    }
                }
                conn.commit();
                System.out.println("count " + n + " ids " + ids);
            }
        }
    }
}
