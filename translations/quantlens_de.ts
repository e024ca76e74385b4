<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>DocumentController</name>
    <message>
        <source>The demo model is missing from this build (%1).</source>
        <translation>Das Demo-Modell fehlt in diesem Build (%1).</translation>
    </message>
    <message>
        <source>fashion_cnn.onnx (demo)</source>
        <translation>fashion_cnn.onnx (Demo)</translation>
    </message>
    <message>
        <source>Open Model</source>
        <translation>Modell öffnen</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX-Modelle (*.onnx);;Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>QuantLens</source>
        <translation>QuantLens</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Open Model…</source>
        <translation>Modell ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <source>&amp;Find Layer</source>
        <translation>Schicht &amp;suchen</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Open &amp;Demo</source>
        <translation>&amp;Demo öffnen</translation>
    </message>
    <message>
        <source>A small BatchNorm CNN trained on Fashion-MNIST, with 64 test images</source>
        <translation>Ein kleines CNN mit BatchNorm, trainiert auf Fashion-MNIST, mit 64 Testbildern</translation>
    </message>
    <message>
        <source>&amp;About QuantLens</source>
        <translation>Ü&amp;ber QuantLens</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Über &amp;Qt</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>Lade %1…</translation>
    </message>
    <message>
        <source>%1 — QuantLens</source>
        <translation>%1 — QuantLens</translation>
    </message>
    <message>
        <source>Loaded %1 in %2 s</source>
        <translation>%1 in %2 s geladen</translation>
    </message>
    <message>
        <source>loader warnings: %1</source>
        <translation>Warnungen beim Laden: %1</translation>
    </message>
    <message>
        <source>Could not open the model</source>
        <translation>Das Modell konnte nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Cannot Open Model</source>
        <translation>Modell kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>About QuantLens</source>
        <translation>Über QuantLens</translation>
    </message>
    <message>
        <source>&lt;h3&gt;QuantLens %1&lt;/h3&gt;&lt;p&gt;Find out why an int8-quantized neural network lost accuracy, and fix it: per-layer weight and activation SQNR, layers back to fp32, calibration choices side by side.&lt;/p&gt;&lt;p&gt;Built with Qt %2, oneDNN and ONNX.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;QuantLens %1&lt;/h3&gt;&lt;p&gt;Finden Sie heraus, warum ein int8-quantisiertes neuronales Netz an Genauigkeit verloren hat, und beheben Sie es: SQNR von Gewichten und Aktivierungen je Schicht, Schichten zurück auf fp32, Kalibrierungsvarianten im direkten Vergleich.&lt;/p&gt;&lt;p&gt;Erstellt mit Qt %2, oneDNN und ONNX.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>RecentFilesController</name>
    <message>
        <source>No Recent Models</source>
        <translation>Keine zuletzt geöffneten Modelle</translation>
    </message>
    <message>
        <source>Clear Menu</source>
        <translation>Liste leeren</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>QuantLens: find and fix int8 quantization accuracy loss.
Subcommands: gui (default), infer, bench; `quantlens SUBCOMMAND --help`.</source>
        <translation>QuantLens: Genauigkeitsverluste durch int8-Quantisierung finden und beheben.
Unterbefehle: gui (Standard), infer, bench; `quantlens UNTERBEFEHL --help`.</translation>
    </message>
    <message>
        <source>ONNX model to open.</source>
        <translation>Zu öffnendes ONNX-Modell.</translation>
    </message>
    <message>
        <source>Open the embedded Fashion-MNIST demo.</source>
        <translation>Die eingebaute Fashion-MNIST-Demo öffnen.</translation>
    </message>
    <message>
        <source>Load, save a PNG of the window to FILE, exit.</source>
        <translation>Laden, ein PNG des Fensters in DATEI speichern, beenden.</translation>
    </message>
    <message>
        <source>give either --demo or one MODEL.onnx</source>
        <translation>entweder --demo oder ein MODELL.onnx angeben</translation>
    </message>
    <message>
        <source>%1: cannot write the PNG</source>
        <translation>%1: PNG kann nicht geschrieben werden</translation>
    </message>
</context>
<context>
    <name>ql::ui::Format</name>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>tensor %1 %2</source>
        <translation>Tensor %1 %2</translation>
    </message>
    <message>
        <source>subgraph</source>
        <translation>Teilgraph</translation>
    </message>
</context>
<context>
    <name>ql::ui::LayerDetailsWidget</name>
    <message>
        <source>Property</source>
        <translation>Eigenschaft</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Select a layer to see its inputs, outputs and attributes.</source>
        <translation>Wählen Sie eine Schicht, um ihre Eingaben, Ausgaben und Attribute zu sehen.</translation>
    </message>
    <message>
        <source>%1 %2 (constant)</source>
        <translation>%1 %2 (Konstante)</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>Eingaben</translation>
    </message>
    <message>
        <source>(omitted)</source>
        <translation>(ausgelassen)</translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation>Ausgaben</translation>
    </message>
    <message>
        <source>Attributes</source>
        <translation>Attribute</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Index</source>
        <translation>Index</translation>
    </message>
    <message>
        <source>Domain</source>
        <translation>Domäne</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parameter</translation>
    </message>
</context>
<context>
    <name>ql::ui::LayerTableModel</name>
    <message>
        <source>No weights or other constant inputs</source>
        <translation>Keine Gewichte oder anderen konstanten Eingaben</translation>
    </message>
    <message>
        <source>%1: %2 %3 (%4 values)</source>
        <translation>%1: %2 %3 (%4 Werte)</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>%1 &apos;%2&apos; (node %3)</source>
        <translation>%1 „%2“ (Knoten %3)</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Op type</source>
        <translation>Operator</translation>
    </message>
    <message>
        <source>Output shape</source>
        <translation>Ausgabeform</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>Position in execution (topological) order</source>
        <translation>Position in der (topologischen) Ausführungsreihenfolge</translation>
    </message>
    <message>
        <source>ONNX node name, as quantization tools and skip-lists use it</source>
        <translation>ONNX-Knotenname, wie ihn Quantisierungswerkzeuge und Ausschlusslisten verwenden</translation>
    </message>
    <message>
        <source>ONNX operator (domain:op for custom domains)</source>
        <translation>ONNX-Operator (Domäne:Op bei eigenen Domänen)</translation>
    </message>
    <message>
        <source>Output shapes from ONNX shape inference; named dims are symbolic</source>
        <translation>Ausgabeformen aus der ONNX-Forminferenz; benannte Dimensionen sind symbolisch</translation>
    </message>
    <message>
        <source>Elements of the node&apos;s constant inputs (weights, biases, BatchNorm statistics)</source>
        <translation>Elemente der konstanten Eingaben des Knotens (Gewichte, Bias, BatchNorm-Statistiken)</translation>
    </message>
</context>
<context>
    <name>ql::ui::LayerTablePanel</name>
    <message>
        <source>Filter by name, op type or shape</source>
        <translation>Nach Name, Operator oder Form filtern</translation>
    </message>
    <message>
        <source>Shows the layers whose name, op type or output shape contains this text (any case)</source>
        <translation>Zeigt die Schichten, deren Name, Operator oder Ausgabeform diesen Text enthält (Groß-/Kleinschreibung egal)</translation>
    </message>
    <message>
        <source>%1 layers</source>
        <translation>%1 Schichten</translation>
    </message>
    <message>
        <source>%1 of %2 layers</source>
        <translation>%1 von %2 Schichten</translation>
    </message>
    <message>
        <source>1 layer</source>
        <translation>1 Schicht</translation>
    </message>
</context>
<context>
    <name>ql::ui::ModelSummaryWidget</name>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Opset</source>
        <translation>Opset</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>Eingaben</translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation>Ausgaben</translation>
    </message>
    <message>
        <source>Loader warnings</source>
        <translation>Ladewarnungen</translation>
    </message>
    <message>
        <source>No model open</source>
        <translation>Kein Modell geöffnet</translation>
    </message>
    <message>
        <source>Graph: %1</source>
        <translation>Graph: %1</translation>
    </message>
    <message>
        <source>%1 in initializers used by nodes</source>
        <translation>%1 in von Knoten genutzten Initialisierern</translation>
    </message>
</context>
<context>
    <name>ql::ui::WelcomePage</name>
    <message>
        <source>QuantLens</source>
        <translation>QuantLens</translation>
    </message>
    <message>
        <source>Find out why an int8-quantized network lost accuracy.
Open a float ONNX model, or try the Fashion-MNIST demo.</source>
        <translation>Finden Sie heraus, warum ein int8-quantisiertes Netz an Genauigkeit verloren hat.
Öffnen Sie ein Float-ONNX-Modell oder probieren Sie die Fashion-MNIST-Demo.</translation>
    </message>
    <message>
        <source>Open Model…</source>
        <translation>Modell öffnen…</translation>
    </message>
    <message>
        <source>Open Demo</source>
        <translation>Demo öffnen</translation>
    </message>
    <message>
        <source>You can also drop an .onnx file here.</source>
        <translation>Sie können auch eine .onnx-Datei hierher ziehen.</translation>
    </message>
</context>
</TS>
