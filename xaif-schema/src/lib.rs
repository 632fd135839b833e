//! XAIF data model, reader, writer, validation and graph views.
