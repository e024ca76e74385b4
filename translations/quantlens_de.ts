<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>AnalysisController</name>
    <message>
        <source>Analysis cancelled</source>
        <translation>Analyse abgebrochen</translation>
    </message>
    <message>
        <source>Keep %1 in fp32</source>
        <translation>%1 in fp32 belassen</translation>
    </message>
    <message>
        <source>Run %1 in int8</source>
        <translation>%1 in int8 ausführen</translation>
    </message>
    <message>
        <source>Reset to all int8</source>
        <translation>Alles auf int8 zurücksetzen</translation>
    </message>
    <message numerus="yes">
        <source>Keep the %n worst layer(s) in fp32</source>
        <translation>
            <numerusform>Die %n schlechteste Schicht in fp32 belassen</numerusform>
            <numerusform>Die %n schlechtesten Schichten in fp32 belassen</numerusform>
        </translation>
    </message>
    <message>
        <source>kept in fp32 in QuantLens: isolated SQNR %1 dB</source>
        <translation>in QuantLens in fp32 belassen: isoliertes SQNR %1 dB</translation>
    </message>
    <message>
        <source>kept in fp32 in QuantLens</source>
        <translation>in QuantLens in fp32 belassen</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a layer of the float model</source>
        <translation>„%1“ ist keine Schicht des Float-Modells</translation>
    </message>
    <message>
        <source>No analysis to export yet</source>
        <translation>Noch keine Analyse zum Exportieren</translation>
    </message>
    <message>
        <source>fp32 layers chosen in QuantLens</source>
        <translation>in QuantLens gewählte fp32-Schichten</translation>
    </message>
    <message>
        <source>Round %1 adaptively (AdaRound)</source>
        <translation>%1 adaptiv runden (AdaRound)</translation>
    </message>
    <message>
        <source>Correct the bias of %1</source>
        <translation>Bias von %1 korrigieren</translation>
    </message>
    <message>
        <source>Round %1 to nearest</source>
        <translation>%1 zum nächsten Wert runden</translation>
    </message>
    <message>
        <source>Undo the bias correction of %1</source>
        <translation>Bias-Korrektur von %1 zurücknehmen</translation>
    </message>
</context>
<context>
    <name>AnalysisJob</name>
    <message>
        <source>Loading</source>
        <translation>Laden</translation>
    </message>
    <message>
        <source>Calibrating</source>
        <translation>Kalibrierung</translation>
    </message>
    <message>
        <source>Rounding weights (AdaRound)</source>
        <translation>Gewichte runden (AdaRound)</translation>
    </message>
    <message>
        <source>Comparing weights</source>
        <translation>Gewichtsvergleich</translation>
    </message>
    <message>
        <source>Cumulative comparison</source>
        <translation>Kumulativer Vergleich</translation>
    </message>
    <message>
        <source>Isolated comparison</source>
        <translation>Isolierter Vergleich</translation>
    </message>
    <message>
        <source>Measuring latency</source>
        <translation>Latenzmessung</translation>
    </message>
    <message>
        <source>Writing the model</source>
        <translation>Schreiben des Modells</translation>
    </message>
    <message>
        <source>Searching fp32 sets</source>
        <translation>fp32-Mengen werden gesucht</translation>
    </message>
    <message>
        <source>Correcting biases</source>
        <translation>Korrigiere Biases</translation>
    </message>
</context>
<context>
    <name>AnalysisSetup</name>
    <message>
        <source>Open a float model</source>
        <translation>Öffnen Sie ein Float-Modell</translation>
    </message>
    <message>
        <source>Open a quantized model or quantize in the app</source>
        <translation>Öffnen Sie ein quantisiertes Modell oder quantisieren Sie in der App</translation>
    </message>
    <message>
        <source>Choose evaluation inputs</source>
        <translation>Wählen Sie Evaluierungs-Eingaben</translation>
    </message>
    <message>
        <source>Unknown calibration method &apos;%1&apos;</source>
        <translation>Unbekannte Kalibrierungsmethode „%1“</translation>
    </message>
    <message>
        <source>Unknown int8 kernel mode &apos;%1&apos;</source>
        <translation>Unbekannter int8-Kernel-Modus „%1“</translation>
    </message>
    <message>
        <source>%1 seeded random inputs (seed %2)</source>
        <translation>%1 zufällige Eingaben (Seed %2)</translation>
    </message>
    <message>
        <source>; labels %1</source>
        <translation>; Labels %1</translation>
    </message>
    <message>
        <source>; preprocess %1</source>
        <translation>; Vorverarbeitung %1</translation>
    </message>
    <message>
        <source>Preprocessing: %1</source>
        <translation>Vorverarbeitung: %1</translation>
    </message>
    <message>
        <source>Unknown remedy &apos;%1&apos; (cle, smoothquant, adaround or bias-correction)</source>
        <translation>Unbekannte Abhilfe „%1“ (cle, smoothquant, adaround oder bias-correction)</translation>
    </message>
</context>
<context>
    <name>AnalysisSetupDialog</name>
    <message>
        <source>Quantize in App</source>
        <translation>In der App quantisieren</translation>
    </message>
    <message>
        <source>Evaluation Data</source>
        <translation>Evaluierungsdaten</translation>
    </message>
    <message>
        <source>New Analysis</source>
        <translation>Neue Analyse</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX-Modelle (*.onnx);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <source>&amp;Float model:</source>
        <translation>&amp;Float-Modell:</translation>
    </message>
    <message>
        <source>Quantized model &amp;file:</source>
        <translation>Quantisiertes Modell aus &amp;Datei:</translation>
    </message>
    <message>
        <source>&amp;Quantize in the app</source>
        <translation>In der App &amp;quantisieren</translation>
    </message>
    <message>
        <source>In-app quantization</source>
        <translation>Quantisierung in der App</translation>
    </message>
    <message>
        <source>the evaluation inputs</source>
        <translation>die Evaluierungs-Eingaben</translation>
    </message>
    <message>
        <source>&amp;Calibration inputs:</source>
        <translation>Kalibrierungs-&amp;Eingaben:</translation>
    </message>
    <message>
        <source>Activation &amp;range:</source>
        <translation>Aktivierungsbe&amp;reich:</translation>
    </message>
    <message>
        <source>&amp;Percentile:</source>
        <translation>&amp;Perzentil:</translation>
    </message>
    <message>
        <source>Weights per &amp;tensor (not per channel)</source>
        <translation>Gewichte pro &amp;Tensor (nicht pro Kanal)</translation>
    </message>
    <message>
        <source>&amp;Symmetric int8 activations</source>
        <translation>&amp;Symmetrische int8-Aktivierungen</translation>
    </message>
    <message>
        <source>Reduce range (&amp;7-bit activations)</source>
        <translation>Reduzierter Bereich (&amp;7-Bit-Aktivierungen)</translation>
    </message>
    <message>
        <source>Fold &amp;BatchNormalization</source>
        <translation>&amp;BatchNormalization falten</translation>
    </message>
    <message>
        <source>Cross-layer &amp;equalization (CLE)</source>
        <translation>Cross-Layer-&amp;Equalization (CLE)</translation>
    </message>
    <message>
        <source>Balance the channel ranges of Conv pairs before calibrating, for weights whose channels are far apart (depthwise convolutions)</source>
        <translation>Gleicht vor dem Kalibrieren die Kanalbereiche von Conv-Paaren an, für Gewichte, deren Kanäle weit auseinanderliegen (Depthwise-Faltungen)</translation>
    </message>
    <message>
        <source>S&amp;moothQuant</source>
        <translation>S&amp;moothQuant</translation>
    </message>
    <message>
        <source>Move the range of activation outlier channels (transformers after LayerNorm) into the next weights before calibrating</source>
        <translation>Verlagert vor dem Kalibrieren den Bereich von Ausreißerkanälen der Aktivierungen (Transformer nach LayerNorm) in die folgenden Gewichte</translation>
    </message>
    <message>
        <source>&amp;AdaRound (slower: minutes on large models)</source>
        <translation>&amp;AdaRound (langsamer: Minuten bei großen Modellen)</translation>
    </message>
    <message>
        <source>After calibrating, round each weight of the int8 layers up or down as best reconstructs the layer&apos;s output on the calibration inputs, instead of to nearest</source>
        <translation>Nach dem Kalibrieren jedes Gewicht der int8-Schichten so auf- oder abrunden, dass die Ausgabe der Schicht auf den Kalibrierungseingaben am besten erhalten bleibt, statt zum nächsten Wert</translation>
    </message>
    <message>
        <source>Evaluation inputs</source>
        <translation>Evaluierungs-Eingaben</translation>
    </message>
    <message>
        <source>Files or f&amp;older:</source>
        <translation>Dateien oder &amp;Ordner:</translation>
    </message>
    <message>
        <source>&amp;Labels:</source>
        <translation>&amp;Labels:</translation>
    </message>
    <message>
        <source>&amp;Random inputs of the model&apos;s input shape</source>
        <translation>&amp;Zufällige Eingaben in der Eingabeform des Modells</translation>
    </message>
    <message>
        <source> samples</source>
        <translation> Samples</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>Seed </translation>
    </message>
    <message>
        <source>&amp;Batch:</source>
        <translation>Batch&amp;größe:</translation>
    </message>
    <message>
        <source>exact: bit-exact int8 reference rounding; fast: oneDNN&apos;s vectorised kernels</source>
        <translation>exact: bitgenaue int8-Referenzrundung; fast: vektorisierte Kernel von oneDNN</translation>
    </message>
    <message>
        <source>Int8 &amp;kernels:</source>
        <translation>int8-&amp;Kernel:</translation>
    </message>
    <message>
        <source>&amp;Analyze</source>
        <translation>&amp;Analysieren</translation>
    </message>
    <message>
        <source>No such file: %1</source>
        <translation>Datei nicht gefunden: %1</translation>
    </message>
    <message>
        <source>each file</source>
        <translation>je Datei</translation>
    </message>
    <message>
        <source>Samples per calibration batch; only the moving average depends on it</source>
        <translation>Samples pro Kalibrierungs-Batch; nur der gleitende Durchschnitt hängt davon ab</translation>
    </message>
    <message>
        <source>Calibration batc&amp;h:</source>
        <translation>Kalibrierungs-Batc&amp;h:</translation>
    </message>
    <message>
        <source>Tensors and images (*.npy *.pb *.png *.jpg *.jpeg *.bmp *.webp);;All files (*)</source>
        <translation>Tensoren und Bilder (*.npy *.pb *.png *.jpg *.jpeg *.bmp *.webp);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>.npy or .pb files (one sample or a batch each), images (.png .jpg .bmp .webp; a folder of class folders gives labels), or folders of them; separate with &apos;;&apos;</source>
        <translation>.npy- oder .pb-Dateien (je ein Sample oder ein Batch), Bilder (.png .jpg .bmp .webp; ein Ordner mit Klassenordnern liefert Labels) oder Ordner davon; mit „;“ trennen</translation>
    </message>
    <message>
        <source>optional: class ids (.npy; for images also .txt or .csv)</source>
        <translation>optional: Klassen-IDs (.npy; für Bilder auch .txt oder .csv)</translation>
    </message>
    <message>
        <source>Labels (*.npy *.txt *.csv);;All files (*)</source>
        <translation>Labels (*.npy *.txt *.csv);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>images: default resize and crop to the model&apos;s input, scale 1/255</source>
        <translation>Bilder: standardmäßig auf die Modelleingabe skaliert und zugeschnitten, Faktor 1/255</translation>
    </message>
    <message>
        <source>For images, applied in this order: color=rgb|bgr|gray, resize=N|HxW, crop=N|HxW, scale=F (1/255 accepted), mean=a:b:c, std=a:b:c, layout=nchw|nhwc, dtype=float32|uint8; or a preset: imagenet, none</source>
        <translation>Für Bilder, in dieser Reihenfolge angewandt: color=rgb|bgr|gray, resize=N|HxW, crop=N|HxW, scale=F (1/255 möglich), mean=a:b:c, std=a:b:c, layout=nchw|nhwc, dtype=float32|uint8; oder eine Vorgabe: imagenet, none</translation>
    </message>
    <message>
        <source>&amp;Preprocess:</source>
        <translation>&amp;Vorverarbeitung:</translation>
    </message>
    <message>
        <source>Preprocess: %1</source>
        <translation>Vorverarbeitung: %1</translation>
    </message>
    <message>
        <source>&amp;Bias correction</source>
        <translation>&amp;Bias-Korrektur</translation>
    </message>
    <message>
        <source>After calibrating (and AdaRound), subtract each int8 layer&apos;s mean output error per channel, measured on the calibration inputs, from its bias; switch it off per layer in the layer menu</source>
        <translation>Nach dem Kalibrieren (und AdaRound) den mittleren Ausgabefehler jedes int8-Layers pro Kanal, gemessen auf den Kalibrierdaten, von seinem Bias abziehen; pro Layer im Layer-Menü abschaltbar</translation>
    </message>
</context>
<context>
    <name>CalibrationLabController</name>
    <message>
        <source>The calibration lab has no run &apos;%1&apos;</source>
        <translation>Das Kalibrierungslabor hat keinen Lauf „%1“</translation>
    </message>
    <message>
        <source>Run %1: calibration index %2 is outside the pool of %3 files</source>
        <translation>Lauf %1: Kalibrierungsindex %2 liegt außerhalb des Pools von %3 Dateien</translation>
    </message>
    <message>
        <source>Run %1 lists no calibration files</source>
        <translation>Lauf %1 nennt keine Kalibrierungsdateien</translation>
    </message>
</context>
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
    <name>Fp32SearchText</name>
    <message>
        <source>Output SQNR</source>
        <translation>Ausgabe-SQNR</translation>
    </message>
    <message>
        <source>Top-1 agreement</source>
        <translation>Top-1-Übereinstimmung</translation>
    </message>
    <message>
        <source>Accuracy drop</source>
        <translation>Genauigkeitsverlust</translation>
    </message>
    <message>
        <source>dB</source>
        <translation>dB</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>points</source>
        <translation>Punkte</translation>
    </message>
    <message>
        <source>output SQNR ≥ %1 dB</source>
        <translation>Ausgangs-SQNR ≥ %1 dB</translation>
    </message>
    <message>
        <source>top-1 agreement ≥ %1 %</source>
        <translation>Top-1-Übereinstimmung ≥ %1 %</translation>
    </message>
    <message>
        <source>accuracy drop ≤ %1 points</source>
        <translation>Genauigkeitsverlust ≤ %1 Punkte</translation>
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
        <source>Loaded %1 in %2 s</source>
        <translation>%1 in %2 s geladen</translation>
    </message>
    <message>
        <source>loader warnings: %1</source>
        <translation>Warnungen beim Laden: %1</translation>
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
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Analysing…</source>
        <translation>Analysiere…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>%1: %2 of %3</source>
        <translation>%1: %2 von %3</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
    <message>
        <source>Cannot Open Demo</source>
        <translation>Demo kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>The demo is missing from this build (%1).</source>
        <translation>Die Demo fehlt in diesem Build (%1).</translation>
    </message>
    <message>
        <source>Cannot Open Project</source>
        <translation>Projekt kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Quantized model: %1</source>
        <translation>Quantisiertes Modell: %1</translation>
    </message>
    <message>
        <source>Open Float Model</source>
        <translation>Float-Modell öffnen</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx);;QuantLens projects (*.qlproj);;All files (*)</source>
        <translation>ONNX-Modelle (*.onnx);;QuantLens-Projekte (*.qlproj);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Open Quantized Model</source>
        <translation>Quantisiertes Modell öffnen</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX-Modelle (*.onnx);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Keep the Worst Layers in fp32</source>
        <translation>Schlechteste Schichten in fp32 belassen</translation>
    </message>
    <message>
        <source>Number of layers (lowest isolated SQNR first):</source>
        <translation>Anzahl der Schichten (niedrigstes isoliertes SQNR zuerst):</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s) moved to fp32</source>
        <translation>
            <numerusform>%n Schicht auf fp32 umgestellt</numerusform>
            <numerusform>%n Schichten auf fp32 umgestellt</numerusform>
        </translation>
    </message>
    <message>
        <source>Export Skip-List</source>
        <translation>Skip-Liste exportieren</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Cannot Export</source>
        <translation>Export nicht möglich</translation>
    </message>
    <message>
        <source>Export Analysis</source>
        <translation>Analyse exportieren</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Export Re-quantized Model</source>
        <translation>Neu quantisiertes Modell exportieren</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx)</source>
        <translation>ONNX-Modelle (*.onnx)</translation>
    </message>
    <message>
        <source>Could not open the model: %1</source>
        <translation>Das Modell konnte nicht geöffnet werden: %1</translation>
    </message>
    <message>
        <source>Analysis Failed</source>
        <translation>Analyse fehlgeschlagen</translation>
    </message>
    <message>
        <source>%1[*] — QuantLens</source>
        <translation>%1[*] — QuantLens</translation>
    </message>
    <message>
        <source>&amp;New Analysis…</source>
        <translation>&amp;Neue Analyse…</translation>
    </message>
    <message>
        <source>Choose the float model, the quantized side and the evaluation inputs</source>
        <translation>Float-Modell, quantisierte Seite und Evaluierungs-Eingaben wählen</translation>
    </message>
    <message>
        <source>&amp;Open Float Model…</source>
        <translation>Float-Modell ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open &amp;Quantized Model…</source>
        <translation>&amp;Quantisiertes Modell öffnen…</translation>
    </message>
    <message>
        <source>Ctrl+Shift+O</source>
        <translation>Ctrl+Shift+O</translation>
    </message>
    <message>
        <source>Quantize in &amp;App…</source>
        <translation>In der &amp;App quantisieren…</translation>
    </message>
    <message>
        <source>Ctrl+Shift+Q</source>
        <translation>Ctrl+Shift+Q</translation>
    </message>
    <message>
        <source>&amp;Evaluation Data…</source>
        <translation>&amp;Evaluierungsdaten…</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>Open &amp;Project…</source>
        <translation>&amp;Projekt öffnen…</translation>
    </message>
    <message>
        <source>Ctrl+Shift+P</source>
        <translation>Ctrl+Shift+P</translation>
    </message>
    <message>
        <source>&amp;Save Project</source>
        <translation>Projekt &amp;speichern</translation>
    </message>
    <message>
        <source>Save Project &amp;As…</source>
        <translation>Projekt speichern &amp;unter…</translation>
    </message>
    <message>
        <source>Ctrl+Shift+E</source>
        <translation>Ctrl+Shift+E</translation>
    </message>
    <message>
        <source>Analysis as &amp;JSON…</source>
        <translation>Analyse als &amp;JSON…</translation>
    </message>
    <message>
        <source>Analysis as &amp;CSV…</source>
        <translation>Analyse als &amp;CSV…</translation>
    </message>
    <message>
        <source>Re-quantized &amp;Model (ONNX)…</source>
        <translation>Neu quantisiertes &amp;Modell (ONNX)…</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>&amp;Rückgängig</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>&amp;Wiederherstellen</translation>
    </message>
    <message>
        <source>Ctrl+Shift+Z</source>
        <translation>Ctrl+Shift+Z</translation>
    </message>
    <message>
        <source>Ctrl+Y</source>
        <translation>Ctrl+Y</translation>
    </message>
    <message>
        <source>Toggle &amp;fp32 for the Selected Layer</source>
        <translation>&amp;fp32 für die gewählte Schicht umschalten</translation>
    </message>
    <message>
        <source>F</source>
        <translation>F</translation>
    </message>
    <message>
        <source>&amp;Reset to All int8</source>
        <translation>Alles auf int8 &amp;zurücksetzen</translation>
    </message>
    <message>
        <source>Ctrl+R</source>
        <translation>Ctrl+R</translation>
    </message>
    <message>
        <source>Keep the N &amp;Worst in fp32…</source>
        <translation>Die &amp;N schlechtesten in fp32 belassen…</translation>
    </message>
    <message>
        <source>Ctrl+K</source>
        <translation>Ctrl+K</translation>
    </message>
    <message>
        <source>Move the layers with the lowest isolated SQNR to fp32</source>
        <translation>Die Schichten mit dem niedrigsten isolierten SQNR auf fp32 umstellen</translation>
    </message>
    <message>
        <source>&amp;Run Analysis Again</source>
        <translation>Analyse &amp;erneut ausführen</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>&amp;Abbrechen</translation>
    </message>
    <message>
        <source>Ctrl+.</source>
        <translation>Ctrl+.</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modell</translation>
    </message>
    <message>
        <source>Ctrl+1</source>
        <translation>Ctrl+1</translation>
    </message>
    <message>
        <source>&amp;Analysis</source>
        <translation>A&amp;nalyse</translation>
    </message>
    <message>
        <source>Ctrl+2</source>
        <translation>Ctrl+2</translation>
    </message>
    <message>
        <source>A small BatchNorm CNN trained on Fashion-MNIST, its int8 pair and 64 test images</source>
        <translation>Ein kleines CNN mit BatchNorm, trainiert auf Fashion-MNIST, sein int8-Gegenstück und 64 Testbilder</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>E&amp;xportieren</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Werkzeugleiste</translation>
    </message>
    <message>
        <source>Calibration &amp;Lab…</source>
        <translation>Kalibrierungs&amp;labor…</translation>
    </message>
    <message>
        <source>Ctrl+L</source>
        <translation>Ctrl+L</translation>
    </message>
    <message>
        <source>Compare calibration methods, sizes and repeats, with the statistics that tell a real difference from noise</source>
        <translation>Kalibrierungsmethoden, -größen und Wiederholungen vergleichen, mit der Statistik, die einen echten Unterschied von Rauschen unterscheidet</translation>
    </message>
    <message>
        <source>&amp;Calibration Lab</source>
        <translation>&amp;Kalibrierungslabor</translation>
    </message>
    <message>
        <source>Ctrl+3</source>
        <translation>Ctrl+3</translation>
    </message>
    <message numerus="yes">
        <source>Calibration lab: %n run(s)</source>
        <translation>
            <numerusform>Kalibrierungslabor: %n Lauf</numerusform>
            <numerusform>Kalibrierungslabor: %n Läufe</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Calibration lab cancelled: %n finished run(s) kept</source>
        <translation>
            <numerusform>Kalibrierungslabor abgebrochen: %n fertiger Lauf behalten</numerusform>
            <numerusform>Kalibrierungslabor abgebrochen: %n fertige Läufe behalten</numerusform>
        </translation>
    </message>
    <message>
        <source>Calibration lab cancelled</source>
        <translation>Kalibrierungslabor abgebrochen</translation>
    </message>
    <message>
        <source>Calibration Lab Failed</source>
        <translation>Kalibrierungslabor fehlgeschlagen</translation>
    </message>
    <message>
        <source>Cannot Open the Run</source>
        <translation>Lauf kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Analysing calibration run %1…</source>
        <translation>Analysiere Kalibrierungslauf %1…</translation>
    </message>
    <message>
        <source>&amp;Skip-List…</source>
        <translation>&amp;Skip-Liste…</translation>
    </message>
    <message>
        <source>The fp32 layers for QuantLens, ONNX Runtime, NNCF, PyTorch, Neural Compressor or TensorRT</source>
        <translation>Die fp32-Schichten für QuantLens, ONNX Runtime, NNCF, PyTorch, Neural Compressor oder TensorRT</translation>
    </message>
    <message>
        <source>Ctrl+Shift+F</source>
        <translation>Ctrl+Shift+F</translation>
    </message>
    <message>
        <source>QuantLens skip-list (*.json)</source>
        <translation>QuantLens-Skip-Liste (*.json)</translation>
    </message>
    <message>
        <source>ONNX Runtime quantize_static nodes_to_exclude (*.py)</source>
        <translation>ONNX Runtime quantize_static nodes_to_exclude (*.py)</translation>
    </message>
    <message>
        <source>NNCF IgnoredScope (*.py)</source>
        <translation>NNCF IgnoredScope (*.py)</translation>
    </message>
    <message>
        <source>PyTorch QConfigMapping (*.py)</source>
        <translation>PyTorch QConfigMapping (*.py)</translation>
    </message>
    <message>
        <source>Intel Neural Compressor op_name_dict (*.py)</source>
        <translation>Intel Neural Compressor op_name_dict (*.py)</translation>
    </message>
    <message>
        <source>TensorRT trtexec options (*.txt)</source>
        <translation>TensorRT-trtexec-Optionen (*.txt)</translation>
    </message>
    <message>
        <source>Find fp32 &amp;Set…</source>
        <translation>fp32-&amp;Menge finden…</translation>
    </message>
    <message>
        <source>Ctrl+F</source>
        <translation>Ctrl+F</translation>
    </message>
    <message>
        <source>The fewest layers (or the fastest plan) to keep in fp32 for a target, every candidate set measured</source>
        <translation>Die wenigsten Schichten (oder der schnellste Plan), die für ein Ziel in fp32 bleiben müssen; jede Kandidatenmenge gemessen</translation>
    </message>
    <message>
        <source>fp32 search cancelled</source>
        <translation>fp32-Suche abgebrochen</translation>
    </message>
    <message>
        <source>fp32 search failed: %1</source>
        <translation>fp32-Suche fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Export &amp;Report…</source>
        <translation>&amp;Bericht exportieren…</translation>
    </message>
    <message>
        <source>Ctrl+Shift+R</source>
        <translation>Ctrl+Shift+R</translation>
    </message>
    <message>
        <source>The analysis as one HTML file (which reopens it) or as a PDF, for a reviewer</source>
        <translation>Die Analyse als eine HTML-Datei (die sie wieder öffnet) oder als PDF, für Reviewer</translation>
    </message>
    <message>
        <source>Writing the report…</source>
        <translation>Bericht wird geschrieben…</translation>
    </message>
    <message>
        <source>HTML report (*.html)</source>
        <translation>HTML-Bericht (*.html)</translation>
    </message>
    <message>
        <source>PDF report (*.pdf)</source>
        <translation>PDF-Bericht (*.pdf)</translation>
    </message>
    <message>
        <source>Export Report</source>
        <translation>Bericht exportieren</translation>
    </message>
    <message>
        <source>the QuantLens window (File &gt; Export Report…); the setup is the one this report carries</source>
        <translation>dem QuantLens-Fenster (Datei &gt; Bericht exportieren…); die Einrichtung ist die, die dieser Bericht enthält</translation>
    </message>
    <message>
        <source>&amp;Analysis Chart</source>
        <translation>&amp;Analyse-Diagramm</translation>
    </message>
    <message>
        <source>&amp;Graph</source>
        <translation>&amp;Graph</translation>
    </message>
    <message>
        <source>The model as a laid-out graph, boxes filled by SQNR; click a group to open it</source>
        <translation>Das Modell als gezeichneter Graph, Kästen nach SQNR gefärbt; Klick auf eine Gruppe öffnet sie</translation>
    </message>
    <message>
        <source>Ctrl+4</source>
        <translation>Ctrl+4</translation>
    </message>
    <message>
        <source>Showing sample #%1 alone</source>
        <translation>Nur Sample #%1 wird gezeigt</translation>
    </message>
</context>
<context>
    <name>PathField</name>
    <message>
        <source>Files…</source>
        <translation>Dateien…</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Choose Files</source>
        <translation>Dateien wählen</translation>
    </message>
    <message>
        <source>Choose File</source>
        <translation>Datei wählen</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>Ordner…</translation>
    </message>
    <message>
        <source>Choose Folder</source>
        <translation>Ordner wählen</translation>
    </message>
</context>
<context>
    <name>ProjectController</name>
    <message>
        <source>%1: cannot write the project (%2)</source>
        <translation>%1: Projekt kann nicht geschrieben werden (%2)</translation>
    </message>
    <message>
        <source>%1: cannot open (%2)</source>
        <translation>%1: kann nicht geöffnet werden (%2)</translation>
    </message>
    <message>
        <source>%1: not a QuantLens project (%2)</source>
        <translation>%1: kein QuantLens-Projekt (%2)</translation>
    </message>
    <message>
        <source>%1: not a QuantLens project</source>
        <translation>%1: kein QuantLens-Projekt</translation>
    </message>
    <message>
        <source>%1: written by a newer QuantLens (version %2)</source>
        <translation>%1: von einer neueren QuantLens-Version geschrieben (Version %2)</translation>
    </message>
    <message>
        <source>Recover Project</source>
        <translation>Projekt wiederherstellen</translation>
    </message>
    <message>
        <source>%1 has unsaved changes from a session that did not close normally. Restore them?</source>
        <translation>%1 hat ungesicherte Änderungen aus einer Sitzung, die nicht normal beendet wurde. Wiederherstellen?</translation>
    </message>
    <message>
        <source>Cannot Save Project</source>
        <translation>Projekt kann nicht gespeichert werden</translation>
    </message>
    <message>
        <source>Save Project</source>
        <translation>Projekt speichern</translation>
    </message>
    <message>
        <source>QuantLens projects (*.qlproj)</source>
        <translation>QuantLens-Projekte (*.qlproj)</translation>
    </message>
    <message>
        <source>Open Project</source>
        <translation>Projekt öffnen</translation>
    </message>
    <message>
        <source>Cannot Open Project</source>
        <translation>Projekt kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Unsaved Changes</source>
        <translation>Ungesicherte Änderungen</translation>
    </message>
    <message>
        <source>The analysis has unsaved changes (fp32 layers, threshold or inputs). Save them as a project?</source>
        <translation>Die Analyse hat ungesicherte Änderungen (fp32-Schichten, Schwellwert oder Eingaben). Als Projekt speichern?</translation>
    </message>
    <message>
        <source>Recover Analysis</source>
        <translation>Analyse wiederherstellen</translation>
    </message>
    <message>
        <source>QuantLens did not close normally. Restore the analysis it was working on (%1)?</source>
        <translation>QuantLens wurde nicht normal beendet. Die zuletzt bearbeitete Analyse (%1) wiederherstellen?</translation>
    </message>
    <message>
        <source>&quot;%1&quot; should be %2</source>
        <translation>„%1“ sollte %2 sein</translation>
    </message>
    <message>
        <source>&quot;%1&quot; should hold only strings</source>
        <translation>„%1“ sollte nur Zeichenketten enthalten</translation>
    </message>
    <message>
        <source>JSON, but not an object</source>
        <translation>JSON, aber kein Objekt</translation>
    </message>
    <message>
        <source>%1: not a valid QuantLens project (%2)</source>
        <translation>%1: kein gültiges QuantLens-Projekt (%2)</translation>
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
    <name>Report</name>
    <message>
        <source>no finite values</source>
        <translation>keine endlichen Werte</translation>
    </message>
    <message>
        <source>not matched in this model</source>
        <translation>in diesem Modell nicht zugeordnet</translation>
    </message>
    <message>
        <source>float</source>
        <translation>float</translation>
    </message>
    <message>
        <source>int8, dequantized</source>
        <translation>int8, dequantisiert</translation>
    </message>
    <message>
        <source>value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>count (log)</source>
        <translation>Anzahl (log)</translation>
    </message>
    <message>
        <source>Per-layer SQNR</source>
        <translation>SQNR je Schicht</translation>
    </message>
    <message>
        <source>%1 % (95 % CI %2–%3 %, Wilson)</source>
        <translation>%1 % (95-%-KI %2–%3 %, Wilson)</translation>
    </message>
    <message>
        <source>quantized in QuantLens from the float model</source>
        <translation>in QuantLens aus dem Float-Modell quantisiert</translation>
    </message>
    <message>
        <source>Float model</source>
        <translation>Float-Modell</translation>
    </message>
    <message>
        <source>Quantized model</source>
        <translation>Quantisiertes Modell</translation>
    </message>
    <message>
        <source>Evaluation data</source>
        <translation>Auswertungsdaten</translation>
    </message>
    <message numerus="yes">
        <source>%n sample(s)</source>
        <translation>
            <numerusform>%n Sample</numerusform>
            <numerusform>%n Samples</numerusform>
        </translation>
    </message>
    <message>
        <source>Output SQNR</source>
        <translation>Ausgabe-SQNR</translation>
    </message>
    <message>
        <source>Top-1 agreement</source>
        <translation>Top-1-Übereinstimmung</translation>
    </message>
    <message>
        <source>Accuracy, float model</source>
        <translation>Genauigkeit, Float-Modell</translation>
    </message>
    <message>
        <source>Accuracy, quantized model</source>
        <translation>Genauigkeit, quantisiertes Modell</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>Latenz</translation>
    </message>
    <message numerus="yes">
        <source>int8 %1 ms · fp32 %2 ms for %n sample(s) (median of 3 passes)</source>
        <translation>
            <numerusform>int8 %1 ms · fp32 %2 ms für %n Sample (Median aus 3 Durchläufen)</numerusform>
            <numerusform>int8 %1 ms · fp32 %2 ms für %n Samples (Median aus 3 Durchläufen)</numerusform>
        </translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>nicht gemessen</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Schichten</translation>
    </message>
    <message>
        <source>%1 int8 · %2 fp32 · %3 kept in fp32 by the user</source>
        <translation>%1 int8 · %2 fp32 · %3 vom Benutzer in fp32 gehalten</translation>
    </message>
    <message>
        <source>No findings.</source>
        <translation>Keine Befunde.</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>Hinweis</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>Schicht</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Präzision</translation>
    </message>
    <message>
        <source>Weight SQNR (dB)</source>
        <translation>Gewichts-SQNR (dB)</translation>
    </message>
    <message>
        <source>Cumulative SQNR (dB)</source>
        <translation>Kumulatives SQNR (dB)</translation>
    </message>
    <message>
        <source>Isolated SQNR (dB)</source>
        <translation>Isoliertes SQNR (dB)</translation>
    </message>
    <message>
        <source>Saturation (%)</source>
        <translation>Sättigung (%)</translation>
    </message>
    <message>
        <source>Kernel check (dB)</source>
        <translation>Kernel-Prüfung (dB)</translation>
    </message>
    <message>
        <source>(kept by the user)</source>
        <translation>(vom Benutzer gehalten)</translation>
    </message>
    <message>
        <source>mismatch</source>
        <translation>Abweichung</translation>
    </message>
    <message>
        <source>No int8 layer with an SQNR figure, or no models to run.</source>
        <translation>Keine int8-Schicht mit SQNR-Wert, oder keine Modelle zum Ausführen.</translation>
    </message>
    <message>
        <source>%1 (%2): %3 dB. Float values and int8 values dequantized, first evaluation batch.</source>
        <translation>%1 (%2): %3 dB. Float-Werte und dequantisierte int8-Werte, erster Auswertungs-Batch.</translation>
    </message>
    <message>
        <source>No histogram: %1</source>
        <translation>Kein Histogramm: %1</translation>
    </message>
    <message>
        <source>None: every layer runs as the quantized model has it.</source>
        <translation>Keine: jede Schicht läuft so, wie das quantisierte Modell sie vorsieht.</translation>
    </message>
    <message>
        <source>As a skip-list for &lt;code&gt;quantlens quantize --skip-list&lt;/code&gt; (File &amp;gt; Export &amp;gt; Skip-List… writes the other toolchains&apos; formats):</source>
        <translation>Als Skip-Liste für &lt;code&gt;quantlens quantize --skip-list&lt;/code&gt; (Datei &amp;gt; Exportieren &amp;gt; Skip-Liste… schreibt die Formate der anderen Werkzeuge):</translation>
    </message>
    <message>
        <source>QuantLens</source>
        <translation>QuantLens</translation>
    </message>
    <message>
        <source>Made with</source>
        <translation>Erstellt mit</translation>
    </message>
    <message>
        <source>Quantizer options</source>
        <translation>Quantisierer-Optionen</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>Kernels</translation>
    </message>
    <message>
        <source>SQNR threshold</source>
        <translation>SQNR-Schwellwert</translation>
    </message>
    <message>
        <source>CPU instruction set (oneDNN)</source>
        <translation>CPU-Befehlssatz (oneDNN)</translation>
    </message>
    <message>
        <source>Date</source>
        <translation>Datum</translation>
    </message>
    <message>
        <source>QuantLens report: %1</source>
        <translation>QuantLens-Bericht: %1</translation>
    </message>
    <message>
        <source>Made on %1 by QuantLens %2</source>
        <translation>Erstellt am %1 mit QuantLens %2</translation>
    </message>
    <message>
        <source>Bars: weight SQNR; line: cumulative activation SQNR; diamonds: isolated SQNR; dashed: the %1 dB threshold; hatched: fp32 layers.</source>
        <translation>Balken: Gewichts-SQNR; Linie: kumulatives Aktivierungs-SQNR; Rauten: isoliertes SQNR; gestrichelt: der Schwellwert von %1 dB; schraffiert: fp32-Schichten.</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>Befunde</translation>
    </message>
    <message>
        <source>Click a column header to sort. Rows under the threshold are shaded.</source>
        <translation>Zum Sortieren auf einen Spaltenkopf klicken. Zeilen unter dem Schwellwert sind hinterlegt.</translation>
    </message>
    <message>
        <source>Worst layers</source>
        <translation>Schlechteste Schichten</translation>
    </message>
    <message>
        <source>Layers kept in fp32</source>
        <translation>In fp32 gehaltene Schichten</translation>
    </message>
    <message>
        <source>How this analysis was made</source>
        <translation>Wie diese Analyse entstand</translation>
    </message>
    <message>
        <source>This file carries the analysis: &lt;code&gt;quantlens gui %1&lt;/code&gt; reopens it (the models and data are found relative to this file).</source>
        <translation>Diese Datei enthält die Analyse: &lt;code&gt;quantlens gui %1&lt;/code&gt; öffnet sie wieder (Modelle und Daten werden relativ zu dieser Datei gesucht).</translation>
    </message>
    <message>
        <source>REPORT.html</source>
        <translation>BERICHT.html</translation>
    </message>
    <message>
        <source>not a QuantLens report, or one without its analysis</source>
        <translation>kein QuantLens-Bericht, oder einer ohne seine Analyse</translation>
    </message>
    <message>
        <source>the analysis it carries is damaged (%1)</source>
        <translation>die enthaltene Analyse ist beschädigt (%1)</translation>
    </message>
    <message>
        <source>Page %1 of %2</source>
        <translation>Seite %1 von %2</translation>
    </message>
    <message>
        <source>No per-sample figures in this analysis.</source>
        <translation>Diese Analyse hat keine Werte je Sample.</translation>
    </message>
    <message>
        <source>The %1 samples with the lowest output SQNR and the %2 whose top-1 class changes under quantization (%3 rows here), lowest SQNR first.</source>
        <translation>Die %1 Samples mit dem niedrigsten Ausgabe-SQNR und die %2, deren Top-1-Klasse sich durch die Quantisierung ändert (%3 Zeilen hier), niedrigstes SQNR zuerst.</translation>
    </message>
    <message>
        <source>Sample</source>
        <translation>Sample</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <source>Label</source>
        <translation>Label</translation>
    </message>
    <message>
        <source>Float top-1</source>
        <translation>Float-Top-1</translation>
    </message>
    <message>
        <source>Int8 top-1</source>
        <translation>int8-Top-1</translation>
    </message>
    <message>
        <source>Output SQNR (dB)</source>
        <translation>Ausgabe-SQNR (dB)</translation>
    </message>
    <message>
        <source>(changed)</source>
        <translation>(geändert)</translation>
    </message>
    <message>
        <source>Worst samples</source>
        <translation>Schlechteste Samples</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Open the embedded Fashion-MNIST demo.</source>
        <translation>Die eingebaute Fashion-MNIST-Demo öffnen.</translation>
    </message>
    <message>
        <source>%1: cannot write the PNG</source>
        <translation>%1: PNG kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>ONNX model or QuantLens project to open.</source>
        <translation>Zu öffnendes ONNX-Modell oder QuantLens-Projekt.</translation>
    </message>
    <message>
        <source>Colour palette: system (default) or dark.</source>
        <translation>Farbpalette: system (Standard) oder dark.</translation>
    </message>
    <message>
        <source>--palette expects system or dark</source>
        <translation>--palette erwartet system oder dark</translation>
    </message>
    <message>
        <source>give either --demo or one MODEL.onnx or PROJECT.qlproj</source>
        <translation>entweder --demo oder ein MODELL.onnx oder PROJEKT.qlproj angeben</translation>
    </message>
    <message>
        <source>Select this layer once the analysis is in.</source>
        <translation>Diese Schicht auswählen, sobald die Analyse vorliegt.</translation>
    </message>
    <message>
        <source>Layer inspector tab to show: parameters, weights, activations, scatter, channels, samples or explain.</source>
        <translation>Anzuzeigender Reiter des Schicht-Inspektors: parameters, weights, activations, scatter, channels, samples oder explain.</translation>
    </message>
    <message>
        <source>--inspector-tab: unknown tab &apos;%1&apos;</source>
        <translation>--inspector-tab: unbekannter Reiter „%1“</translation>
    </message>
    <message>
        <source>--layer: no layer &apos;%1&apos; in the analysis</source>
        <translation>--layer: keine Schicht „%1“ in der Analyse</translation>
    </message>
    <message>
        <source>QuantLens: find and fix int8 quantization accuracy loss.
Subcommands: gui (default), infer, bench, quantize, analyze, calib-lab, search, report; `quantlens SUBCOMMAND --help`.</source>
        <translation>QuantLens: Genauigkeitsverluste durch int8-Quantisierung finden und beheben.
Unterbefehle: gui (Standard), infer, bench, quantize, analyze, calib-lab, search, report; `quantlens UNTERBEFEHL --help`.</translation>
    </message>
    <message>
        <source>Load (and analyse a project or the demo), save a PNG of the window to FILE, exit. Needs no display.</source>
        <translation>Laden (und ein Projekt oder die Demo analysieren), ein PNG des Fensters nach DATEI speichern, beenden. Braucht keine Anzeige.</translation>
    </message>
    <message>
        <source>View to show: chart (default) or graph (the model laid out, boxes filled by SQNR).</source>
        <translation>Anzuzeigende Ansicht: chart (Standard) oder graph (das Modell als Graph, Kästen nach SQNR gefärbt).</translation>
    </message>
    <message>
        <source>--view expects chart or graph</source>
        <translation>--view erwartet chart oder graph</translation>
    </message>
    <message>
        <source>Show evaluation sample N alone (its own per-layer analysis) once the analysis is in.</source>
        <translation>Evaluierungs-Sample N allein zeigen (seine eigene Analyse je Schicht), sobald die Analyse vorliegt.</translation>
    </message>
    <message>
        <source>--sample expects a sample index</source>
        <translation>--sample erwartet einen Sample-Index</translation>
    </message>
    <message>
        <source>What --screenshot saves: window (default), inspector, or layer-menu (the window with the --layer&apos;s menu open beside its table row).</source>
        <translation>Was --screenshot speichert: window (Standard), inspector oder layer-menu (das Fenster mit dem Menü des --layer neben seiner Tabellenzeile).</translation>
    </message>
    <message>
        <source>--grab expects window, inspector or layer-menu</source>
        <translation>--grab erwartet window, inspector oder layer-menu</translation>
    </message>
</context>
<context>
    <name>ql::ui</name>
    <message>
        <source>Round Adaptively (AdaRound)</source>
        <translation>Adaptiv runden (AdaRound)</translation>
    </message>
    <message>
        <source>Correct Bias</source>
        <translation>Bias korrigieren</translation>
    </message>
    <message>
        <source>AdaRound</source>
        <translation>AdaRound</translation>
    </message>
    <message>
        <source>bias corr.</source>
        <translation>Bias-Korr.</translation>
    </message>
    <message>
        <source>Rounds each weight up or down so that the layer&apos;s output on the calibration data is reconstructed best, instead of to nearest; the layer stays int8.</source>
        <translation>Rundet jedes Gewicht auf oder ab, so dass die Ausgabe des Layers auf den Kalibrierdaten am besten rekonstruiert wird, statt zum nächsten Wert; der Layer bleibt int8.</translation>
    </message>
    <message>
        <source>Subtracts the mean error of each output channel, measured on the calibration data, from the layer&apos;s bias; the layer stays int8.</source>
        <translation>Zieht den mittleren Fehler jedes Ausgabekanals, gemessen auf den Kalibrierdaten, vom Bias des Layers ab; der Layer bleibt int8.</translation>
    </message>
    <message>
        <source>The layer runs in fp32.</source>
        <translation>Der Layer läuft in fp32.</translation>
    </message>
    <message>
        <source>AdaRound rounds the weights of Conv, Gemm and MatMul layers.</source>
        <translation>AdaRound rundet die Gewichte von Conv-, Gemm- und MatMul-Layern.</translation>
    </message>
    <message>
        <source>Bias correction moves the bias of Conv, ConvTranspose and Gemm layers.</source>
        <translation>Die Bias-Korrektur verschiebt den Bias von Conv-, ConvTranspose- und Gemm-Layern.</translation>
    </message>
    <message>
        <source>Needs the float model quantized in the app (File &gt; Quantize in App…).</source>
        <translation>Braucht das in der App quantisierte Float-Modell (Datei &gt; In der App quantisieren…).</translation>
    </message>
</context>
<context>
    <name>ql::ui::AnalysisHeadline</name>
    <message>
        <source>Output SQNR</source>
        <translation>Ausgabe-SQNR</translation>
    </message>
    <message>
        <source>SQNR of the first model output, float vs quantized model, over all evaluation samples</source>
        <translation>SQNR der ersten Modellausgabe, Float- vs. quantisiertes Modell, über alle Evaluierungs-Samples</translation>
    </message>
    <message>
        <source>Top-1 agreement</source>
        <translation>Top-1-Übereinstimmung</translation>
    </message>
    <message>
        <source>Share of samples where both models predict the same class</source>
        <translation>Anteil der Samples, bei denen beide Modelle dieselbe Klasse vorhersagen</translation>
    </message>
    <message>
        <source>Accuracy fp32 / int8</source>
        <translation>Genauigkeit fp32 / int8</translation>
    </message>
    <message>
        <source>Top-1 accuracy of the float and the quantized model against the labels (needs a labels file)</source>
        <translation>Top-1-Genauigkeit des Float- und des quantisierten Modells gegenüber den Labels (benötigt eine Label-Datei)</translation>
    </message>
    <message>
        <source>Layers int8 / fp32</source>
        <translation>Schichten int8 / fp32</translation>
    </message>
    <message>
        <source>Matched layers by how the quantized model runs them</source>
        <translation>Zugeordnete Schichten, aufgeteilt danach, wie das quantisierte Modell sie ausführt</translation>
    </message>
    <message>
        <source>Latency int8 / fp32</source>
        <translation>Latenz int8 / fp32</translation>
    </message>
    <message>
        <source>Time of one pass of the current int8 plan and of the float model</source>
        <translation>Dauer eines Durchlaufs des aktuellen int8-Plans und des Float-Modells</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>Samples</translation>
    </message>
    <message>
        <source>Evaluation samples both models ran on</source>
        <translation>Evaluierungs-Samples, auf denen beide Modelle liefen</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>(%1%2 pts)</source>
        <translation>(%1%2 Pp.)</translation>
    </message>
    <message>
        <source>(%1 unmatched)</source>
        <translation>(%1 ohne Zuordnung)</translation>
    </message>
    <message>
        <source>%1 dB</source>
        <translation>%1 dB</translation>
    </message>
    <message>
        <source>%1 vs %2 over %3 samples</source>
        <translation>%1 vs. %2 über %3 Samples</translation>
    </message>
    <message>
        <source>%1 / %2 ms</source>
        <translation>%1 / %2 ms</translation>
    </message>
    <message>
        <source> · batch %1, 1 thread</source>
        <translation> · Batch %1, 1 Thread</translation>
    </message>
    <message>
        <source> · batch %1, %2 threads</source>
        <translation> · Batch %1, %2 Threads</translation>
    </message>
    <message>
        <source>One pass over the evaluation samples, median of 3 passes after a warm-up: the current int8 plan, and the float model&apos;s own fp32 plan (fused operators, as quantlens bench times them)</source>
        <translation>Ein Durchlauf über die Auswertungsdaten, Median von 3 Durchläufen nach einem Aufwärmlauf: der aktuelle int8-Plan und der eigene fp32-Plan des Float-Modells (fusionierte Operatoren, wie quantlens bench sie misst)</translation>
    </message>
</context>
<context>
    <name>ql::ui::AnalysisPanel</name>
    <message>
        <source>Keep %1 in fp32</source>
        <translation>%1 in fp32 belassen</translation>
    </message>
    <message>
        <source>Show all layers</source>
        <translation>Alle Schichten zeigen</translation>
    </message>
    <message>
        <source>SQNR &amp;threshold:</source>
        <translation>SQNR-&amp;Schwellwert:</translation>
    </message>
    <message>
        <source> dB</source>
        <translation> dB</translation>
    </message>
    <message>
        <source>Layers whose cumulative or isolated SQNR is under this are highlighted; a healthy layer has about 30 dB or more. Drag the dashed line in the chart to change it.</source>
        <translation>Schichten, deren kumulatives oder isoliertes SQNR darunter liegt, werden hervorgehoben; eine gesunde Schicht hat etwa 30 dB oder mehr. Zum Ändern die gestrichelte Linie im Diagramm ziehen.</translation>
    </message>
    <message>
        <source>Wheel: zoom · drag: pan · double-click: all layers</source>
        <translation>Mausrad: Zoom · Ziehen: Verschieben · Doppelklick: alle Schichten</translation>
    </message>
    <message>
        <source>Filter by name, op type or precision</source>
        <translation>Nach Name, Operator oder Präzision filtern</translation>
    </message>
    <message>
        <source>1 layer under %1 dB</source>
        <translation>1 Schicht unter %1 dB</translation>
    </message>
    <message>
        <source>%1 layers under %2 dB</source>
        <translation>%1 Schichten unter %2 dB</translation>
    </message>
    <message>
        <source>%1 of %2 layers</source>
        <translation>%1 von %2 Schichten</translation>
    </message>
    <message>
        <source>1 layer</source>
        <translation>1 Schicht</translation>
    </message>
    <message>
        <source>%1 layers</source>
        <translation>%1 Schichten</translation>
    </message>
</context>
<context>
    <name>ql::ui::AnalysisTableModel</name>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>int8</source>
        <translation>int8</translation>
    </message>
    <message>
        <source>Runs in fp32</source>
        <translation>Läuft in fp32</translation>
    </message>
    <message>
        <source>Runs in int8</source>
        <translation>Läuft in int8</translation>
    </message>
    <message>
        <source>Lowering: %1</source>
        <translation>Umsetzung: %1</translation>
    </message>
    <message>
        <source>Changed here; the figures are from the %1 run</source>
        <translation>Hier geändert; die Werte stammen aus dem %1-Lauf</translation>
    </message>
    <message>
        <source>Check to keep this layer in fp32</source>
        <translation>Ankreuzen, um diese Schicht in fp32 zu belassen</translation>
    </message>
    <message>
        <source>%1 dB is under the %2 dB threshold</source>
        <translation>%1 dB liegt unter dem Schwellwert von %2 dB</translation>
    </message>
    <message>
        <source>Per-sample SQNR: min %1 dB, 5th percentile %2 dB, median %3 dB (%4 samples)</source>
        <translation>SQNR je Sample: Min. %1 dB, 5. Perzentil %2 dB, Median %3 dB (%4 Samples)</translation>
    </message>
    <message>
        <source>The int8 kernel differs from the reference path (dequantize, fp32 op, quantize): %1 dB, under %2 dB</source>
        <translation>Der int8-Kernel weicht vom Referenzpfad ab (dequantisieren, fp32-Op, quantisieren): %1 dB, unter %2 dB</translation>
    </message>
    <message>
        <source>%1 &apos;%2&apos;</source>
        <translation>%1 „%2“</translation>
    </message>
    <message>
        <source>Quantized model: %1</source>
        <translation>Quantisiertes Modell: %1</translation>
    </message>
    <message>
        <source>Includes (float): %1</source>
        <translation>Enthält (float): %1</translation>
    </message>
    <message>
        <source>Includes (quantized): %1</source>
        <translation>Enthält (quantisiert): %1</translation>
    </message>
    <message>
        <source>Position in the float model&apos;s topological order</source>
        <translation>Position in der topologischen Reihenfolge des Float-Modells</translation>
    </message>
    <message>
        <source>Float model node name (skip-lists use it)</source>
        <translation>Knotenname im Float-Modell (wird von Skip-Listen verwendet)</translation>
    </message>
    <message>
        <source>ONNX operator of the float node</source>
        <translation>ONNX-Operator des Float-Knotens</translation>
    </message>
    <message>
        <source>How the quantized layer runs; check to keep it in fp32</source>
        <translation>Wie die quantisierte Schicht ausgeführt wird; ankreuzen, um sie in fp32 zu belassen</translation>
    </message>
    <message>
        <source>Weight SQNR = 10·log10(Σw² / Σ(w − dequant(q(w)))²), float weight (BN-folded when the quantized model folded it) vs dequantized int8 weight</source>
        <translation>Gewichts-SQNR = 10·log10(Σw² / Σ(w − dequant(q(w)))²), Float-Gewicht (BN-gefaltet, wenn das quantisierte Modell BN gefaltet hat) vs. dequantisiertes int8-Gewicht</translation>
    </message>
    <message>
        <source>Cumulative activation SQNR: both models run end to end on the same inputs, this layer&apos;s outputs compared; 10·log10(Σx² / Σ(x−y)²)</source>
        <translation>Kumulatives Aktivierungs-SQNR: Beide Modelle laufen komplett auf denselben Eingaben, verglichen werden die Ausgaben dieser Schicht; 10·log10(Σx² / Σ(x−y)²)</translation>
    </message>
    <message>
        <source>Isolated (shadow) SQNR: the quantized layer fed the float model&apos;s input to it, compared with the float layer&apos;s output: the layer&apos;s own error</source>
        <translation>Isoliertes (Schatten-)SQNR: Die quantisierte Schicht erhält die Eingabe aus dem Float-Modell und wird mit der Ausgabe der Float-Schicht verglichen: der eigene Fehler der Schicht</translation>
    </message>
    <message>
        <source>Cosine similarity Σxy / sqrt(Σx²·Σy²) of the cumulative outputs</source>
        <translation>Kosinus-Ähnlichkeit Σxy / sqrt(Σx²·Σy²) der kumulativen Ausgaben</translation>
    </message>
    <message>
        <source>sqrt(MSE) / output scale; about 0.289 is the quantization noise floor</source>
        <translation>sqrt(MSE) / Ausgabe-Skalierung; etwa 0,289 ist das Grundrauschen der Quantisierung</translation>
    </message>
    <message>
        <source>Share of quantized output values clipped at qmin or qmax (%)</source>
        <translation>Anteil der quantisierten Ausgabewerte, die bei qmin oder qmax abgeschnitten werden (%)</translation>
    </message>
    <message>
        <source>5th percentile of the per-sample cumulative SQNR: far under the overall SQNR means the error depends on the data (a few inputs are bad)</source>
        <translation>5. Perzentil des kumulativen SQNR je Sample: Liegt es weit unter dem Gesamt-SQNR, hängt der Fehler von den Daten ab (einige wenige Eingaben sind schlecht)</translation>
    </message>
    <message>
        <source>int8 kernel output vs the reference path (dequantize, fp32 op, quantize); under %1 dB is flagged as a kernel mismatch</source>
        <translation>Ausgabe des int8-Kernels vs. Referenzpfad (dequantisieren, fp32-Op, quantisieren); unter %1 dB gilt als Kernel-Abweichung</translation>
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
        <source>Precision</source>
        <translation>Präzision</translation>
    </message>
    <message>
        <source>Weight dB</source>
        <translation>Gewicht dB</translation>
    </message>
    <message>
        <source>Cumul. dB</source>
        <translation>Kumul. dB</translation>
    </message>
    <message>
        <source>Isolated dB</source>
        <translation>Isoliert dB</translation>
    </message>
    <message>
        <source>Cosine</source>
        <translation>Kosinus</translation>
    </message>
    <message>
        <source>RMSE/scale</source>
        <translation>RMSE/Skal.</translation>
    </message>
    <message>
        <source>Sat. %</source>
        <translation>Sätt. %</translation>
    </message>
    <message>
        <source>p5 dB</source>
        <translation>p5 dB</translation>
    </message>
    <message>
        <source>Kernel dB</source>
        <translation>Kernel dB</translation>
    </message>
    <message>
        <source>Kept in fp32, but it still runs int8: its output stays quantized for the int8 layers that read it. Keep those in fp32 too, or click to drop the request.</source>
        <translation>In fp32 belassen, läuft aber weiter in int8: Ihre Ausgabe bleibt für die int8-Schichten quantisiert, die sie lesen. Belassen Sie auch diese in fp32, oder klicken Sie, um den Wunsch zurückzunehmen.</translation>
    </message>
    <message>
        <source>The quantized model runs this layer in fp32: nothing to toggle</source>
        <translation>Das quantisierte Modell führt diese Schicht in fp32 aus: nichts umzuschalten</translation>
    </message>
    <message>
        <source>Matched by its weights: correlation %1 with the quantized layer&apos;s</source>
        <translation>Über die Gewichte zugeordnet: Korrelation %1 mit denen der quantisierten Schicht</translation>
    </message>
    <message>
        <source>Matched by structure: it reads the same values (confidence %1)</source>
        <translation>Über die Struktur zugeordnet: liest dieselben Werte (Konfidenz %1)</translation>
    </message>
    <message>
        <source>Matched by node name among several candidates (confidence %1)</source>
        <translation>Unter mehreren Kandidaten über den Knotennamen zugeordnet (Konfidenz %1)</translation>
    </message>
    <message>
        <source>int8 + %1</source>
        <translation>int8 + %1</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationComparisonModel</name>
    <message>
        <source>Comparison</source>
        <translation>Vergleich</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>A − B (points) [95 % CI]</source>
        <translation>A − B (Punkte) [95-%-KI]</translation>
    </message>
    <message>
        <source>p (McNemar)</source>
        <translation>p (McNemar)</translation>
    </message>
    <message>
        <source>n01</source>
        <translation>n01</translation>
    </message>
    <message>
        <source>n10</source>
        <translation>n10</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>Urteil</translation>
    </message>
    <message>
        <source>%1 of A minus %1 of B in percentage points, on the same evaluation samples, with a paired bootstrap 95 % interval: within noise when it contains 0</source>
        <translation>%1 von A minus %1 von B in Prozentpunkten, auf denselben Evaluierungs-Samples, mit einem gepaarten Bootstrap-95-%-Intervall: im Rauschen, wenn es 0 enthält</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>top-1 agreement</source>
        <translation>Top-1-Übereinstimmung</translation>
    </message>
    <message>
        <source>Exact McNemar test: two-sided binomial test of n01 against n01 + n10 at 1/2</source>
        <translation>Exakter McNemar-Test: zweiseitiger Binomialtest von n01 gegen n01 + n10 bei 1/2</translation>
    </message>
    <message>
        <source>Samples A gets wrong and B gets right</source>
        <translation>Samples, die A falsch und B richtig hat</translation>
    </message>
    <message>
        <source>Samples A gets right and B gets wrong</source>
        <translation>Samples, die A richtig und B falsch hat</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationLabChart</name>
    <message>
        <source>Calibration size (files, log scale)</source>
        <translation>Kalibrierungsgröße (Dateien, logarithmisch)</translation>
    </message>
    <message>
        <source>Float model (95 % CI)</source>
        <translation>Float-Modell (95-%-KI)</translation>
    </message>
    <message>
        <source>%1 (%)</source>
        <translation>%1 (%)</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Output SQNR: %1 dB</source>
        <translation>Ausgabe-SQNR: %1 dB</translation>
    </message>
    <message>
        <source>Same calibration as %1</source>
        <translation>Gleiche Kalibrierung wie %1</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationLabData</name>
    <message>
        <source>%1, batch %2</source>
        <translation>%1, Batch %2</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationLabDialog</name>
    <message>
        <source>Calibration Lab</source>
        <translation>Kalibrierungslabor</translation>
    </message>
    <message>
        <source>Tensors (*.npy *.pb);;All files (*)</source>
        <translation>Tensoren (*.npy *.pb);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Model and data</source>
        <translation>Modell und Daten</translation>
    </message>
    <message>
        <source>&amp;Float model:</source>
        <translation>&amp;Float-Modell:</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX-Modelle (*.onnx);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Each file is one calibration item (one sample or a batch); every run draws its files from here. Separate several with &apos;;&apos;.</source>
        <translation>Jede Datei ist ein Kalibrierungselement (ein Sample oder ein Batch); jeder Lauf zieht seine Dateien von hier. Mehrere mit „;“ trennen.</translation>
    </message>
    <message>
        <source>Calibration &amp;pool:</source>
        <translation>Kalibrierungs&amp;pool:</translation>
    </message>
    <message>
        <source>Every run is evaluated on these samples. Keep them apart from the pool, or the score flatters the calibration.</source>
        <translation>Jeder Lauf wird auf diesen Samples evaluiert. Halten Sie sie vom Pool getrennt, sonst schönt die Bewertung die Kalibrierung.</translation>
    </message>
    <message>
        <source>&amp;Evaluation inputs:</source>
        <translation>&amp;Evaluierungs-Eingaben:</translation>
    </message>
    <message>
        <source>optional: class ids, .npy (without: top-1 agreement with the float model)</source>
        <translation>optional: Klassen-IDs, .npy (ohne: Top-1-Übereinstimmung mit dem Float-Modell)</translation>
    </message>
    <message>
        <source>L&amp;abels:</source>
        <translation>L&amp;abels:</translation>
    </message>
    <message>
        <source>NumPy arrays (*.npy)</source>
        <translation>NumPy-Arrays (*.npy)</translation>
    </message>
    <message>
        <source>Calibrations</source>
        <translation>Kalibrierungen</translation>
    </message>
    <message>
        <source>MinMax</source>
        <translation>MinMax</translation>
    </message>
    <message>
        <source>Percentile</source>
        <translation>Perzentil</translation>
    </message>
    <message>
        <source>Entropy</source>
        <translation>Entropie</translation>
    </message>
    <message>
        <source>MSE</source>
        <translation>MSE</translation>
    </message>
    <message>
        <source>Moving average</source>
        <translation>Gleitender Durchschnitt</translation>
    </message>
    <message>
        <source>&amp;Methods:</source>
        <translation>&amp;Methoden:</translation>
    </message>
    <message>
        <source>Calibration files per run; each at most the size of the pool</source>
        <translation>Kalibrierungsdateien pro Lauf; jeweils höchstens so viele, wie der Pool hat</translation>
    </message>
    <message>
        <source>&amp;Sizes:</source>
        <translation>&amp;Größen:</translation>
    </message>
    <message>
        <source>Independent draws per method and size: their spread is the noise of choosing calibration samples</source>
        <translation>Unabhängige Ziehungen pro Methode und Größe: Ihre Streuung ist das Rauschen der Auswahl von Kalibrierungs-Samples</translation>
    </message>
    <message>
        <source>Repea&amp;ts:</source>
        <translation>&amp;Wiederholungen:</translation>
    </message>
    <message>
        <source>random</source>
        <translation>zufällig</translation>
    </message>
    <message>
        <source>Files drawn uniformly from the pool (seeded)</source>
        <translation>Gleichverteilt aus dem Pool gezogene Dateien (mit Seed)</translation>
    </message>
    <message>
        <source>stratified</source>
        <translation>geschichtet</translation>
    </message>
    <message>
        <source>As even as possible over the classes the float model predicts for the pool</source>
        <translation>So gleichmäßig wie möglich über die Klassen, die das Float-Modell für den Pool vorhersagt</translation>
    </message>
    <message>
        <source>first</source>
        <translation>erste</translation>
    </message>
    <message>
        <source>The first files of the pool (every repeat is the same run)</source>
        <translation>Die ersten Dateien des Pools (jede Wiederholung ist derselbe Lauf)</translation>
    </message>
    <message>
        <source>Selecti&amp;on:</source>
        <translation>A&amp;uswahl:</translation>
    </message>
    <message>
        <source>Samples per calibration batch, e.g. 1,8. Only the moving average depends on it; the other methods see the same values.</source>
        <translation>Samples pro Kalibrierungs-Batch, z. B. 1,8. Nur der gleitende Durchschnitt hängt davon ab; die anderen Methoden sehen dieselben Werte.</translation>
    </message>
    <message>
        <source>Calibration &amp;batches:</source>
        <translation>Kalibrierungs-&amp;Batches:</translation>
    </message>
    <message>
        <source>See&amp;d:</source>
        <translation>See&amp;d:</translation>
    </message>
    <message>
        <source>Evaluation batc&amp;h:</source>
        <translation>Evaluierungs-Batc&amp;h:</translation>
    </message>
    <message>
        <source>Quantizer</source>
        <translation>Quantisierer</translation>
    </message>
    <message>
        <source>Weights per tensor (not per &amp;channel)</source>
        <translation>Gewichte pro Tensor (nicht pro &amp;Kanal)</translation>
    </message>
    <message>
        <source>S&amp;ymmetric int8 activations</source>
        <translation>S&amp;ymmetrische int8-Aktivierungen</translation>
    </message>
    <message>
        <source>Reduce range (&amp;7-bit activations)</source>
        <translation>Reduzierter Bereich (&amp;7-Bit-Aktivierungen)</translation>
    </message>
    <message>
        <source>Fold Batch&amp;Normalization</source>
        <translation>Batch&amp;Normalization falten</translation>
    </message>
    <message>
        <source>Per-layer S&amp;QNR of every run (slower)</source>
        <translation>S&amp;QNR je Schicht für jeden Lauf (langsamer)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Starten</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) planned</source>
        <translation>
            <numerusform>%n Lauf geplant</numerusform>
            <numerusform>%n Läufe geplant</numerusform>
        </translation>
    </message>
    <message>
        <source>No such file or folder: %1</source>
        <translation>Datei oder Ordner nicht gefunden: %1</translation>
    </message>
    <message>
        <source>Remedy sets applied after quantizing each calibration, comma-separated: none, bias-correction, adaround, adaround+bias-correction. Each remedied run is compared with the same calibration without remedies.</source>
        <translation>Abhilfen nach dem Quantisieren jeder Kalibrierung, durch Kommas getrennt: none, bias-correction, adaround, adaround+bias-correction. Jeder Lauf mit Abhilfe wird mit derselben Kalibrierung ohne Abhilfe verglichen.</translation>
    </message>
    <message>
        <source>Re&amp;medies:</source>
        <translation>Abhil&amp;fen:</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationLabJob</name>
    <message>
        <source>Loading</source>
        <translation>Laden</translation>
    </message>
    <message>
        <source>Float model over the pool</source>
        <translation>Float-Modell über den Pool</translation>
    </message>
    <message>
        <source>Float model over the evaluation set</source>
        <translation>Float-Modell über die Evaluierungsdaten</translation>
    </message>
    <message>
        <source>Calibration runs</source>
        <translation>Kalibrierungsläufe</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationLabSettings</name>
    <message>
        <source>%1: &apos;%2&apos; is not a positive number</source>
        <translation>%1: „%2“ ist keine positive Zahl</translation>
    </message>
    <message>
        <source>%1: enter at least one number</source>
        <translation>%1: Geben Sie mindestens eine Zahl ein</translation>
    </message>
    <message>
        <source>Choose the float model</source>
        <translation>Wählen Sie das Float-Modell</translation>
    </message>
    <message>
        <source>Choose the calibration pool (files or a folder)</source>
        <translation>Wählen Sie den Kalibrierungspool (Dateien oder einen Ordner)</translation>
    </message>
    <message>
        <source>Choose the evaluation inputs (files or a folder)</source>
        <translation>Wählen Sie die Evaluierungs-Eingaben (Dateien oder einen Ordner)</translation>
    </message>
    <message>
        <source>Choose at least one calibration method</source>
        <translation>Wählen Sie mindestens eine Kalibrierungsmethode</translation>
    </message>
    <message>
        <source>Unknown calibration method &apos;%1&apos;</source>
        <translation>Unbekannte Kalibrierungsmethode „%1“</translation>
    </message>
    <message>
        <source>Percentile: %1 is not in (0, 100]</source>
        <translation>Perzentil: %1 liegt nicht in (0, 100]</translation>
    </message>
    <message>
        <source>Sizes</source>
        <translation>Größen</translation>
    </message>
    <message>
        <source>Calibration batches</source>
        <translation>Kalibrierungs-Batches</translation>
    </message>
    <message>
        <source>Repeats: at least 1</source>
        <translation>Wiederholungen: mindestens 1</translation>
    </message>
    <message>
        <source>Unknown selection &apos;%1&apos;</source>
        <translation>Unbekannte Auswahl „%1“</translation>
    </message>
    <message>
        <source>Evaluation batch: at least 1</source>
        <translation>Evaluierungs-Batch: mindestens 1</translation>
    </message>
    <message>
        <source>Remedies: give at least one set (none is one)</source>
        <translation>Abhilfen: mindestens eine angeben (none ist eine)</translation>
    </message>
    <message>
        <source>Remedies: &apos;%1&apos; is not none, bias-correction, adaround or adaround+bias-correction</source>
        <translation>Abhilfen: „%1“ ist weder none, bias-correction, adaround noch adaround+bias-correction</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationLabText</name>
    <message>
        <source>best vs worst</source>
        <translation>bester vs. schlechtester</translation>
    </message>
    <message>
        <source>method vs float</source>
        <translation>Methode vs. Float</translation>
    </message>
    <message>
        <source>size step</source>
        <translation>Größenschritt</translation>
    </message>
    <message>
        <source>batch step</source>
        <translation>Batch-Schritt</translation>
    </message>
    <message>
        <source>float model</source>
        <translation>Float-Modell</translation>
    </message>
    <message>
        <source>about %1 s left</source>
        <translation>noch etwa %1 s</translation>
    </message>
    <message>
        <source>about %1 min left</source>
        <translation>noch etwa %1 min</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>Top-1 agreement</source>
        <translation>Top-1-Übereinstimmung</translation>
    </message>
    <message>
        <source>remedy vs none</source>
        <translation>Abhilfe gegen keine</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationLabView</name>
    <message>
        <source>Runs (double-click one to open it as the analysis)</source>
        <translation>Läufe (Doppelklick öffnet einen als Analyse)</translation>
    </message>
    <message>
        <source>Paired comparisons on the same evaluation samples</source>
        <translation>Gepaarte Vergleiche auf denselben Evaluierungs-Samples</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Stop after the current run; the finished runs stay</source>
        <translation>Nach dem aktuellen Lauf anhalten; die fertigen Läufe bleiben</translation>
    </message>
    <message>
        <source>Starting the calibration lab…</source>
        <translation>Starte das Kalibrierungslabor…</translation>
    </message>
    <message>
        <source>%1: %2 of %3</source>
        <translation>%1: %2 von %3</translation>
    </message>
    <message>
        <source>Open %1 as the Analysis</source>
        <translation>%1 als Analyse öffnen</translation>
    </message>
    <message>
        <source>Copy the quantize Command</source>
        <translation>quantize-Befehl kopieren</translation>
    </message>
    <message>
        <source>No calibration lab yet. Analysis &gt; Calibration Lab… compares calibration methods, sizes and repeats, and tells a real difference from noise.</source>
        <translation>Noch kein Kalibrierungslabor. Analyse &gt; Kalibrierungslabor… vergleicht Kalibrierungsmethoden, -größen und Wiederholungen und unterscheidet einen echten Unterschied von Rauschen.</translation>
    </message>
    <message>
        <source>Float model accuracy %1</source>
        <translation>Genauigkeit des Float-Modells %1</translation>
    </message>
    <message>
        <source>No labels: every run is scored by its top-1 agreement with the float model</source>
        <translation>Keine Labels: Jeder Lauf wird nach seiner Top-1-Übereinstimmung mit dem Float-Modell bewertet</translation>
    </message>
    <message numerus="yes">
        <source>%n evaluation sample(s)</source>
        <translation>
            <numerusform>%n Evaluierungs-Sample</numerusform>
            <numerusform>%n Evaluierungs-Samples</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 of %2 runs</source>
        <translation>%1 von %2 Läufen</translation>
    </message>
    <message>
        <source>best: %1, %2</source>
        <translation>bester: %1, %2</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>The calibration lab is running; its runs appear here when it finishes or is cancelled.</source>
        <translation>Das Kalibrierungslabor läuft; seine Läufe erscheinen hier, wenn es fertig ist oder abgebrochen wird.</translation>
    </message>
</context>
<context>
    <name>ql::ui::CalibrationRunModel</name>
    <message numerus="yes">
        <source>%1: %n calibration file(s), batch %2</source>
        <translation>
            <numerusform>%1: %n Kalibrierungsdatei, Batch %2</numerusform>
            <numerusform>%1: %n Kalibrierungsdateien, Batch %2</numerusform>
        </translation>
    </message>
    <message>
        <source>Top-1 agreement: %1</source>
        <translation>Top-1-Übereinstimmung: %1</translation>
    </message>
    <message>
        <source>Accuracy: %1</source>
        <translation>Genauigkeit: %1</translation>
    </message>
    <message>
        <source>Same calibration as %1: evaluated once</source>
        <translation>Gleiche Kalibrierung wie %1: einmal evaluiert</translation>
    </message>
    <message>
        <source>Reproduce: %1</source>
        <translation>Reproduzieren: %1</translation>
    </message>
    <message>
        <source>Double-click: open this run as the analysis</source>
        <translation>Doppelklick: diesen Lauf als Analyse öffnen</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>Methode</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Repeat</source>
        <translation>Wiederholung</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>Batch</translation>
    </message>
    <message>
        <source>SQNR (dB)</source>
        <translation>SQNR (dB)</translation>
    </message>
    <message>
        <source>Agreement</source>
        <translation>Übereinstimmung</translation>
    </message>
    <message>
        <source>Accuracy [95 % CI]</source>
        <translation>Genauigkeit [95-%-KI]</translation>
    </message>
    <message>
        <source>Identical to</source>
        <translation>Identisch mit</translation>
    </message>
    <message>
        <source>Time (s)</source>
        <translation>Zeit (s)</translation>
    </message>
    <message>
        <source>Calibration files of the run</source>
        <translation>Kalibrierungsdateien des Laufs</translation>
    </message>
    <message>
        <source>Samples per calibration batch</source>
        <translation>Samples pro Kalibrierungs-Batch</translation>
    </message>
    <message>
        <source>SQNR of the first output over all evaluation samples: 10·log10(Σx² / Σ(x−y)²), x float, y dequantized int8</source>
        <translation>SQNR der ersten Ausgabe über alle Evaluierungs-Samples: 10·log10(Σx² / Σ(x−y)²), x float, y dequantisiertes int8</translation>
    </message>
    <message>
        <source>Share of evaluation samples whose top-1 class equals the float model&apos;s</source>
        <translation>Anteil der Evaluierungs-Samples, deren Top-1-Klasse der des Float-Modells entspricht</translation>
    </message>
    <message>
        <source>Top-1 accuracy on the labels, with its Wilson score interval (95 %)</source>
        <translation>Top-1-Genauigkeit gegenüber den Labels, mit ihrem Wilson-Score-Intervall (95 %)</translation>
    </message>
    <message>
        <source>An earlier run with the same calibration (same method and files): evaluated once</source>
        <translation>Ein früherer Lauf mit derselben Kalibrierung (gleiche Methode und Dateien): einmal evaluiert</translation>
    </message>
</context>
<context>
    <name>ql::ui::DiagnosisList</name>
    <message>
        <source>Findings of the analysis, most serious first; click one to select its layer</source>
        <translation>Befunde der Analyse, die schwerwiegendsten zuerst; ein Klick wählt die betroffene Schicht</translation>
    </message>
    <message>
        <source>No findings: every figure is within its healthy range</source>
        <translation>Keine Befunde: Alle Werte liegen im gesunden Bereich</translation>
    </message>
    <message>
        <source>%1 (%2): click to select the layer</source>
        <translation>%1 (%2): klicken, um die Schicht zu wählen</translation>
    </message>
    <message>
        <source>The whole model</source>
        <translation>Das gesamte Modell</translation>
    </message>
    <message>
        <source>BatchNormalization after %1 is not folded and runs int8: %2 dB</source>
        <translation>BatchNormalization nach %1 ist nicht gefaltet und läuft in int8: %2 dB</translation>
    </message>
    <message>
        <source>BatchNormalization %1 is not folded and runs int8: %2 dB</source>
        <translation>BatchNormalization %1 ist nicht gefaltet und läuft in int8: %2 dB</translation>
    </message>
    <message>
        <source>Error starts at %1: cumulative SQNR %2 dB, under the %3 dB threshold</source>
        <translation>Der Fehler beginnt bei %1: kumulatives SQNR %2 dB, unter dem Schwellwert von %3 dB</translation>
    </message>
    <message>
        <source>Error starts at %1: cumulative SQNR %2 dB after %3 dB at the previous layer (threshold %4 dB)</source>
        <translation>Der Fehler beginnt bei %1: kumulatives SQNR %2 dB nach %3 dB an der vorigen Schicht (Schwellwert %4 dB)</translation>
    </message>
    <message>
        <source>Cumulative SQNR drops by %1 dB at %2: %3 dB to %4 dB</source>
        <translation>Kumulatives SQNR fällt bei %2 um %1 dB: von %3 dB auf %4 dB</translation>
    </message>
    <message>
        <source>%1 has an isolated SQNR of %2 dB: its own quantization error, not inherited from earlier layers</source>
        <translation>%1 hat ein isoliertes SQNR von %2 dB: ein eigener Quantisierungsfehler, nicht von früheren Schichten geerbt</translation>
    </message>
    <message>
        <source>%1 is data-sensitive: per-sample SQNR %2 dB at worst against a median of %3 dB (5th percentile %4 dB); check the calibration data</source>
        <translation>%1 ist datenabhängig: SQNR je Sample im schlechtesten Fall %2 dB bei einem Median von %3 dB (5. Perzentil %4 dB); Kalibrierungsdaten prüfen</translation>
    </message>
    <message>
        <source>%1 clips %2 of its float values at the int8 range</source>
        <translation>%1 schneidet %2 seiner Float-Werte am int8-Bereich ab</translation>
    </message>
    <message>
        <source>The int8 kernel of %1 differs from the reference path: %2 dB (below %3 dB)</source>
        <translation>Der int8-Kernel von %1 weicht vom Referenzpfad ab: %2 dB (unter %3 dB)</translation>
    </message>
    <message>
        <source>%1 has a weight SQNR of only %2 dB (worst channel %3: %4 dB)</source>
        <translation>%1 hat ein Gewichts-SQNR von nur %2 dB (schlechtester Kanal %3: %4 dB)</translation>
    </message>
    <message>
        <source>Weight channel %1 of %2 is much worse than the others: %3 dB against a median of %4 dB</source>
        <translation>Gewichtskanal %1 von %2 ist viel schlechter als die anderen: %3 dB bei einem Median von %4 dB</translation>
    </message>
    <message>
        <source>The models predict the same class for only %1 of the samples (output SQNR %2 dB)</source>
        <translation>Die Modelle sagen nur für %1 der Samples dieselbe Klasse vorher (Ausgabe-SQNR %2 dB)</translation>
    </message>
    <message>
        <source>Accuracy drops from %1 (float) to %2 (quantized)</source>
        <translation>Die Genauigkeit fällt von %1 (float) auf %2 (quantisiert)</translation>
    </message>
    <message>
        <source>Activation range of %1 varies %2x between samples (%3 to %4) and per-sample SQNR falls to %5 dB against a median of %6 dB: one scale cannot fit them all; data-sensitive</source>
        <translation>Der Aktivierungsbereich von %1 schwankt zwischen den Samples um das %2-Fache (%3 bis %4), und das SQNR je Sample fällt auf %5 dB gegenüber einem Median von %6 dB: Eine Skala passt nicht zu allen; datenabhängig</translation>
    </message>
    <message>
        <source>Activation range of %1 varies %2x between samples (%3 to %4): one scale cannot fit them all; data-sensitive</source>
        <translation>Der Aktivierungsbereich von %1 schwankt zwischen den Samples um das %2-Fache (%3 bis %4): Eine Skala passt nicht zu allen; datenabhängig</translation>
    </message>
    <message>
        <source>; its channels&apos; weight ranges are %1x apart, too far for one int8 scale: cross-layer equalization (quantize --remedy cle) balances them</source>
        <translation>; die Gewichtsbereiche seiner Kanäle liegen %1-fach auseinander, zu weit für eine int8-Skala: Cross-Layer-Equalization (quantize --remedy cle) gleicht sie an</translation>
    </message>
    <message>
        <source>Channel %1 of %2 reaches %3x the median channel&apos;s range (%4 against %5)</source>
        <translation>Kanal %1 von %2 erreicht das %3-Fache des Bereichs des mittleren Kanals (%4 gegenüber %5)</translation>
    </message>
    <message>
        <source>Channel %1 of %2, which %3 reads, reaches %4x the median channel&apos;s range (%5 against %6)</source>
        <translation>Kanal %1 von %2, den %3 liest, erreicht das %4-Fache des Bereichs des mittleren Kanals (%5 gegenüber %6)</translation>
    </message>
    <message>
        <source>: one int8 scale for all channels leaves the others few levels; SmoothQuant (quantize --remedy smoothquant) moves the outliers&apos; range into the weights</source>
        <translation>: Eine int8-Skala für alle Kanäle lässt den übrigen nur wenige Stufen; SmoothQuant (quantize --remedy smoothquant) verlagert den Bereich der Ausreißer in die Gewichte</translation>
    </message>
    <message>
        <source>%1: %2 of its error is a constant shift per output channel (mean error %3 against an error of %4; channel %5 shifts most): bias correction (quantize --remedy bias-correction) subtracts it</source>
        <translation>%1: %2 seines Fehlers sind eine konstante Verschiebung je Ausgangskanal (mittlerer Fehler %3 gegenüber einem Fehler von %4; Kanal %5 verschiebt sich am meisten): Bias-Korrektur (quantize --remedy bias-correction) zieht sie ab</translation>
    </message>
    <message>
        <source>%1 int8 layer(s) with balanced channel ranges owe much of their own error to weight rounding, %2: about %3 of its isolated error: AdaRound (quantize --remedy adaround) chooses each weight&apos;s rounding for the layer&apos;s output (predicted there: about +%4 dB isolated SQNR)</source>
        <translation>%1 int8-Schicht(en) mit ausgeglichenen Kanalbereichen verdanken einen großen Teil ihres eigenen Fehlers dem Runden der Gewichte, %2: etwa %3 ihres isolierten Fehlers: AdaRound (quantize --remedy adaround) wählt die Rundung jedes Gewichts für die Ausgabe der Schicht (dort vorhergesagt: etwa +%4 dB isoliertes SQNR)</translation>
    </message>
</context>
<context>
    <name>ql::ui::ElementExplanationView</name>
    <message>
        <source>No requantization: %1 works on the 8-bit values;
the output keeps the input&apos;s scale and zero point.
</source>
        <translation>Keine Requantisierung: %1 rechnet direkt mit den 8-Bit-Werten;
die Ausgabe behält Skalierung und Nullpunkt der Eingabe.
</translation>
    </message>
    <message>
        <source>Dequantize: y_scale·(q − y_zp) = %1·(%2 − %3) = %4
</source>
        <translation>Dequantisieren: y_scale·(q − y_zp) = %1·(%2 − %3) = %4
</translation>
    </message>
    <message>
        <source>Engine&apos;s int8 output: %1 ✓ equal
</source>
        <translation>int8-Ausgabe der Engine: %1 ✓ gleich
</translation>
    </message>
    <message>
        <source>Engine&apos;s int8 output: %1 ✗ differs
</source>
        <translation>int8-Ausgabe der Engine: %1 ✗ abweichend
</translation>
    </message>
    <message>
        <source>Requantize:
</source>
        <translation>Requantisieren:
</translation>
    </message>
    <message>
        <source>  M = x_scale·w_scale / y_scale
</source>
        <translation>  M = x_scale·w_scale / y_scale
</translation>
    </message>
    <message>
        <source>    = %1·%2 / %3 = %4
</source>
        <translation>    = %1·%2 / %3 = %4
</translation>
    </message>
    <message>
        <source>  acc·M          = %1
</source>
        <translation>  acc·M          = %1
</translation>
    </message>
    <message>
        <source>  real / y_scale = %1 / %2 = %3
</source>
        <translation>  real / y_scale = %1 / %2 = %3
</translation>
    </message>
    <message>
        <source>  round (half to even) = %1
</source>
        <translation>  runden (.5 → gerade) = %1
</translation>
    </message>
    <message>
        <source>  + y_zp (%1)          = %2
</source>
        <translation>  + y_zp (%1)          = %2
</translation>
    </message>
    <message>
        <source> (narrowed by the fused %1)</source>
        <translation> (eingeengt durch fusioniertes %1)</translation>
    </message>
    <message>
        <source>  clamp to %1 → %2%3
</source>
        <translation>  begrenzen auf %1 → %2%3
</translation>
    </message>
    <message>
        <source>  (clamped)</source>
        <translation>  (begrenzt)</translation>
    </message>
    <message>
        <source>Quantized layer: %1
</source>
        <translation>Quantisierte Schicht: %1
</translation>
    </message>
    <message>
        <source>  with %1 fused
</source>
        <translation>  fusioniert mit %1
</translation>
    </message>
    <message>
        <source>Output element %1

</source>
        <translation>Ausgabeelement %1

</translation>
    </message>
    <message>
        <source>x_zp = %1   x_scale = %2
</source>
        <translation>x_zp = %1   x_scale = %2
</translation>
    </message>
    <message>
        <source>w_zp = %1   w_scale = %2   (channel %3)
</source>
        <translation>w_zp = %1   w_scale = %2   (Kanal %3)
</translation>
    </message>
    <message>
        <source>Products (x_q − x_zp)·(w_q − w_zp), the %1 largest of %2:
</source>
        <translation>Produkte (x_q − x_zp)·(w_q − w_zp), die %1 größten von %2:
</translation>
    </message>
    <message>
        <source>Products (x_q − x_zp)·(w_q − w_zp), %1 in all:
</source>
        <translation>Produkte (x_q − x_zp)·(w_q − w_zp), %1 insgesamt:
</translation>
    </message>
    <message>
        <source>  … %1 more
</source>
        <translation>  … %1 weitere
</translation>
    </message>
    <message>
        <source>  (%1 window positions in the padding add 0)
</source>
        <translation>  (%1 Fensterpositionen im Padding tragen 0 bei)
</translation>
    </message>
    <message>
        <source>int32 accumulation Σ = %1
</source>
        <translation>int32-Akkumulator Σ = %1
</translation>
    </message>
    <message>
        <source>+ bias_int32 (%1) = %2

</source>
        <translation>+ bias_int32 (%1) = %2

</translation>
    </message>
    <message>
        <source>x_q = %1   x_zp = %2   x_scale = %3
</source>
        <translation>x_q = %1   x_zp = %2   x_scale = %3
</translation>
    </message>
    <message>
        <source>x = x_scale·(x_q − x_zp) = %1
</source>
        <translation>x = x_scale·(x_q − x_zp) = %1
</translation>
    </message>
    <message>
        <source>gamma = %1  beta = %2
mean = %3  var = %4  eps = %5   (channel %6)
</source>
        <translation>gamma = %1  beta = %2
mean = %3  var = %4  eps = %5   (Kanal %6)
</translation>
    </message>
    <message>
        <source>y = gamma·(x − mean)/sqrt(var + eps) + beta
  = %1   (in float, between DQ and Q)

</source>
        <translation>y = gamma·(x − mean)/sqrt(var + eps) + beta
  = %1   (in float, zwischen DQ und Q)

</translation>
    </message>
    <message>
        <source>Operands (%1):
</source>
        <translation>Operanden (%1):
</translation>
    </message>
    <message>
        <source>  %1: q = %2, zp = %3, scale = %4 → %5
</source>
        <translation>  %1: q = %2, zp = %3, scale = %4 → %5
</translation>
    </message>
    <message>
        <source>  %1: q = %2
</source>
        <translation>  %1: q = %2
</translation>
    </message>
    <message>
        <source>  %1: %2 (float)
</source>
        <translation>  %1: %2 (float)
</translation>
    </message>
    <message>
        <source>%1 = %2

</source>
        <translation>%1 = %2

</translation>
    </message>
    <message>
        <source>Float model: %1
</source>
        <translation>Float-Modell: %1
</translation>
    </message>
    <message>
        <source>  (BatchNormalization folded into w and b)
</source>
        <translation>  (BatchNormalization in w und b gefaltet)
</translation>
    </message>
    <message>
        <source>%1
</source>
        <translation>%1
</translation>
    </message>
    <message>
        <source>Products x·w (float input and weight),
same positions:
</source>
        <translation>Produkte x·w (Float-Eingabe und -Gewicht),
gleiche Positionen:
</translation>
    </message>
    <message>
        <source>b = %1
</source>
        <translation>b = %1
</translation>
    </message>
    <message>
        <source>  %1 = %2
    (quantized model: %3)
</source>
        <translation>  %1 = %2
    (quantisiertes Modell: %3)
</translation>
    </message>
    <message>
        <source>
Formula value     = %1
</source>
        <translation>
Formelwert         = %1
</translation>
    </message>
    <message>
        <source>Float model value = %1
</source>
        <translation>Float-Modell       = %1
</translation>
    </message>
    <message>
        <source>Quantized value   = %1
</source>
        <translation>Quantisierter Wert = %1
</translation>
    </message>
    <message>
        <source>Difference (quantized − float) = %1
</source>
        <translation>Differenz (quantisiert − float) = %1
</translation>
    </message>
    <message>
        <source>  = %1 output steps
</source>
        <translation>  = %1 Quantisierungsstufen der Ausgabe
</translation>
    </message>
    <message>
        <source>  from the quantized operands: %1
</source>
        <translation>  aus den quantisierten Operanden: %1
</translation>
    </message>
    <message>
        <source>  from requantization:         %1
</source>
        <translation>  aus der Requantisierung:         %1
</translation>
    </message>
    <message>
        <source>Output element, e.g. 0, 3, 12, 7</source>
        <translation>Ausgabeelement, z. B. 0, 3, 12, 7</translation>
    </message>
    <message>
        <source>Coordinates of one output element (N, C, H, W for a convolution, row, column for Gemm)</source>
        <translation>Koordinaten eines Ausgabeelements (N, C, H, W bei einer Faltung; Zeile, Spalte bei Gemm)</translation>
    </message>
    <message>
        <source>Explain</source>
        <translation>Erklären</translation>
    </message>
    <message>
        <source>Worst element</source>
        <translation>Schlechtestes Element</translation>
    </message>
    <message>
        <source>The element with the largest error in the first sample</source>
        <translation>Das Element mit dem größten Fehler im ersten Sample</translation>
    </message>
    <message>
        <source>Element:</source>
        <translation>Element:</translation>
    </message>
    <message>
        <source>&lt;b&gt;Integer arithmetic (int8 kernel)&lt;/b&gt;</source>
        <translation>&lt;b&gt;Ganzzahlarithmetik (int8-Kernel)&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Float model&lt;/b&gt;</source>
        <translation>&lt;b&gt;Float-Modell&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Type the element&apos;s coordinates as numbers separated by commas.</source>
        <translation>Geben Sie die Koordinaten des Elements als kommagetrennte Zahlen ein.</translation>
    </message>
    <message>
        <source>No explanation for this layer.</source>
        <translation>Keine Erklärung für diese Schicht.</translation>
    </message>
    <message>
        <source>Quantized %1 vs float %2: difference %3</source>
        <translation>Quantisiert %1, float %2: Differenz %3</translation>
    </message>
    <message>
        <source> — the recomputed integer equals the engine&apos;s output.</source>
        <translation> — der nachgerechnete Integer-Wert stimmt mit der Ausgabe der Engine überein.</translation>
    </message>
    <message>
        <source> — the recomputed integer DIFFERS from the engine&apos;s output.</source>
        <translation> — der nachgerechnete Integer-Wert WEICHT von der Ausgabe der Engine AB.</translation>
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
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
</context>
<context>
    <name>ql::ui::Fp32ParetoChart</name>
    <message>
        <source>int8 plan latency (ms per batch)</source>
        <translation>Latenz des int8-Plans (ms pro Batch)</translation>
    </message>
    <message>
        <source>Meets the target</source>
        <translation>Erreicht das Ziel</translation>
    </message>
    <message>
        <source>Misses it</source>
        <translation>Verfehlt es</translation>
    </message>
    <message>
        <source>The search&apos;s answer</source>
        <translation>Antwort der Suche</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>Ziel</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s) in fp32</source>
        <translation>
            <numerusform>%n Schicht in fp32</numerusform>
            <numerusform>%n Schichten in fp32</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 ms per batch</source>
        <translation>%1 ms pro Batch</translation>
    </message>
    <message>
        <source>Click to apply this set</source>
        <translation>Klicken, um diese Menge anzuwenden</translation>
    </message>
</context>
<context>
    <name>ql::ui::Fp32SearchDialog</name>
    <message>
        <source>&amp;Search</source>
        <translation>&amp;Suchen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>&amp;Apply This Set</source>
        <translation>Diese Menge &amp;anwenden</translation>
    </message>
    <message>
        <source>Find fp32 Set</source>
        <translation>fp32-Menge finden</translation>
    </message>
    <message>
        <source>Fewest fp32 layers</source>
        <translation>Wenigste fp32-Schichten</translation>
    </message>
    <message>
        <source>Fastest int8 plan</source>
        <translation>Schnellster int8-Plan</translation>
    </message>
    <message>
        <source>Fastest: the int8 plans of the measured sets that meet the target are timed and the fastest wins (within 3 %, the one with fewer layers)</source>
        <translation>Schnellster: Die int8-Pläne der gemessenen Mengen, die das Ziel erreichen, werden gestoppt; der schnellste gewinnt (innerhalb von 3 % der mit weniger Schichten)</translation>
    </message>
    <message>
        <source> % of the data</source>
        <translation> % der Daten</translation>
    </message>
    <message>
        <source>None</source>
        <translation>Keiner</translation>
    </message>
    <message>
        <source>The last batches stay out of the search; the set found is measured on them to show whether it generalises</source>
        <translation>Die letzten Batches bleiben aus der Suche heraus; die gefundene Menge wird auf ihnen gemessen, um zu zeigen, ob sie verallgemeinert</translation>
    </message>
    <message>
        <source> sets</source>
        <translation> Mengen</translation>
    </message>
    <message>
        <source>&amp;Target:</source>
        <translation>&amp;Ziel:</translation>
    </message>
    <message>
        <source>&amp;Objective:</source>
        <translation>Zielgr&amp;öße:</translation>
    </message>
    <message>
        <source>&amp;Holdout:</source>
        <translation>&amp;Holdout:</translation>
    </message>
    <message>
        <source>&amp;Budget:</source>
        <translation>&amp;Budget:</translation>
    </message>
    <message>
        <source>What to reach</source>
        <translation>Was erreicht werden soll</translation>
    </message>
    <message>
        <source>Click a point to apply its set (undo with Ctrl+Z).</source>
        <translation>Ein Klick auf einen Punkt wendet seine Menge an (rückgängig mit Ctrl+Z).</translation>
    </message>
    <message>
        <source>Find fp32 set: %1</source>
        <translation>fp32-Menge finden: %1</translation>
    </message>
    <message>
        <source>Needs labels in the evaluation data</source>
        <translation>Braucht Labels in den Auswertungsdaten</translation>
    </message>
    <message>
        <source>A holdout needs at least two evaluation batches</source>
        <translation>Ein Holdout braucht mindestens zwei Auswertungs-Batches</translation>
    </message>
    <message>
        <source>Measuring the model as quantized and with every layer in fp32…</source>
        <translation>Das Modell wird quantisiert und mit allen Schichten in fp32 gemessen…</translation>
    </message>
    <message numerus="yes">
        <source>%n set(s) measured; none meets the target yet</source>
        <translation>
            <numerusform>%n Menge gemessen; noch keine erreicht das Ziel</numerusform>
            <numerusform>%n Mengen gemessen; noch keine erreicht das Ziel</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n set(s) measured; best meeting the target so far: %1</source>
        <translation>
            <numerusform>%n Menge gemessen; beste, die das Ziel erreicht: %1</numerusform>
            <numerusform>%n Mengen gemessen; beste, die das Ziel erreicht: %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Search cancelled; the analysis is as it was.</source>
        <translation>Suche abgebrochen; die Analyse ist unverändert.</translation>
    </message>
    <message>
        <source>The search failed: %1</source>
        <translation>Die Suche ist fehlgeschlagen: %1</translation>
    </message>
    <message numerus="yes">
        <source>Applied: %n layer(s) in fp32. Undo with Ctrl+Z.</source>
        <translation>
            <numerusform>Angewendet: %n Schicht in fp32. Rückgängig mit Ctrl+Z.</numerusform>
            <numerusform>Angewendet: %n Schichten in fp32. Rückgängig mit Ctrl+Z.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Apply a Pareto set: %n layer(s) in fp32</source>
        <translation>
            <numerusform>Pareto-Menge anwenden: %n Schicht in fp32</numerusform>
            <numerusform>Pareto-Menge anwenden: %n Schichten in fp32</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;b&gt;Target %1 not reached&lt;/b&gt; within the budget; the best set tried gives %2.</source>
        <translation>&lt;b&gt;Ziel %1 nicht erreicht&lt;/b&gt; im Budget; die beste versuchte Menge ergibt %2.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Target %1 not reached&lt;/b&gt;: even every layer in fp32 gives %2.</source>
        <translation>&lt;b&gt;Ziel %1 nicht erreicht&lt;/b&gt;: selbst alle Schichten in fp32 ergeben %2.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Target %1 met&lt;/b&gt; with %2 of %3 int8 layers in fp32: %4.</source>
        <translation>&lt;b&gt;Ziel %1 erreicht&lt;/b&gt; mit %2 von %3 int8-Schichten in fp32: %4.</translation>
    </message>
    <message>
        <source>The fastest timed int8 plan that meets it.</source>
        <translation>Der schnellste gemessene int8-Plan, der es erreicht.</translation>
    </message>
    <message>
        <source>Every smaller set was measured: no fewer layers reach it.</source>
        <translation>Jede kleinere Menge wurde gemessen: Weniger Schichten erreichen es nicht.</translation>
    </message>
    <message>
        <source>Found by greedy build-up and pruning.</source>
        <translation>Gefunden durch gierigen Aufbau und Ausdünnen.</translation>
    </message>
    <message numerus="yes">
        <source>All int8 layers in fp32: %1. %n set(s) measured in %2 s.</source>
        <translation>
            <numerusform>Alle int8-Schichten in fp32: %1. %n Menge in %2 s gemessen.</numerusform>
            <numerusform>Alle int8-Schichten in fp32: %1. %n Mengen in %2 s gemessen.</numerusform>
        </translation>
    </message>
    <message>
        <source>Its int8 plan: %1 ms per batch of %2.</source>
        <translation>Ihr int8-Plan: %1 ms pro Batch zu %2.</translation>
    </message>
    <message numerus="yes">
        <source>On the %n held-out sample(s): %1, target %2.</source>
        <translation>
            <numerusform>Auf dem %n zurückgehaltenen Sample: %1, Ziel %2.</numerusform>
            <numerusform>Auf den %n zurückgehaltenen Samples: %1, Ziel %2.</numerusform>
        </translation>
    </message>
    <message>
        <source>met</source>
        <translation>erreicht</translation>
    </message>
    <message>
        <source>&lt;b&gt;not met&lt;/b&gt;</source>
        <translation>&lt;b&gt;nicht erreicht&lt;/b&gt;</translation>
    </message>
</context>
<context>
    <name>ql::ui::GraphMinimap</name>
    <message>
        <source>Click or drag to move the view</source>
        <translation>Klicken oder ziehen, um die Ansicht zu verschieben</translation>
    </message>
</context>
<context>
    <name>ql::ui::GraphView</name>
    <message>
        <source>&amp;Fill:</source>
        <translation>&amp;Füllung:</translation>
    </message>
    <message>
        <source>Cumulative SQNR</source>
        <translation>Kumulatives SQNR</translation>
    </message>
    <message>
        <source>Isolated SQNR</source>
        <translation>Isoliertes SQNR</translation>
    </message>
    <message>
        <source>Weight SQNR</source>
        <translation>Gewichts-SQNR</translation>
    </message>
    <message>
        <source>What the boxes&apos; colour shows</source>
        <translation>Was die Farbe der Kästen zeigt</translation>
    </message>
    <message>
        <source>&amp;Q/DQ nodes</source>
        <translation>&amp;Q/DQ-Knoten</translation>
    </message>
    <message>
        <source>Show QuantizeLinear and DequantizeLinear nodes</source>
        <translation>QuantizeLinear- und DequantizeLinear-Knoten zeigen</translation>
    </message>
    <message>
        <source>&amp;Shape ops</source>
        <translation>&amp;Shape-Operationen</translation>
    </message>
    <message>
        <source>Show shape arithmetic: nodes with only integer outputs (Shape, Gather of dims, ...)</source>
        <translation>Shape-Arithmetik zeigen: Knoten mit nur ganzzahligen Ausgaben (Shape, Gather von Dimensionen, ...)</translation>
    </message>
    <message>
        <source>Expand All</source>
        <translation>Alle öffnen</translation>
    </message>
    <message>
        <source>Open every group</source>
        <translation>Jede Gruppe öffnen</translation>
    </message>
    <message>
        <source>Collapse</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Back to the groups closed at first</source>
        <translation>Zurück zu den anfangs geschlossenen Gruppen</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>Einpassen</translation>
    </message>
    <message>
        <source>Show the whole graph</source>
        <translation>Den ganzen Graphen zeigen</translation>
    </message>
    <message>
        <source>Find node (Ctrl+F, Enter: next)</source>
        <translation>Knoten suchen (Ctrl+F, Enter: nächster)</translation>
    </message>
    <message>
        <source>1 node</source>
        <translation>1 Knoten</translation>
    </message>
    <message>
        <source>%1 nodes</source>
        <translation>%1 Knoten</translation>
    </message>
    <message>
        <source>%1 dB</source>
        <translation>%1 dB</translation>
    </message>
    <message>
        <source>worst %1</source>
        <translation>schlechtester %1</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>%1 · %2 fp32</source>
        <translation>%1 · %2 fp32</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 nodes, collapsed: click to open</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 Knoten, geschlossen: zum Öffnen klicken</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>folded into %1</source>
        <translation>gefaltet in %1</translation>
    </message>
    <message>
        <source>cumulative %1 dB · isolated %2 dB · weight %3 dB</source>
        <translation>kumulativ %1 dB · isoliert %2 dB · Gewichte %3 dB</translation>
    </message>
    <message>
        <source>runs in fp32</source>
        <translation>läuft in fp32</translation>
    </message>
    <message>
        <source>runs in int8</source>
        <translation>läuft in int8</translation>
    </message>
    <message>
        <source> · double-click to toggle</source>
        <translation> · Doppelklick schaltet um</translation>
    </message>
    <message>
        <source>not a compared layer</source>
        <translation>keine verglichene Schicht</translation>
    </message>
    <message>
        <source>Laying out 1 box…</source>
        <translation>Ordne 1 Kasten an…</translation>
    </message>
    <message>
        <source>Laying out %1 boxes…</source>
        <translation>Ordne %1 Kästen an…</translation>
    </message>
    <message>
        <source>Layout failed: %1</source>
        <translation>Anordnung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 nodes: click the title to collapse</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 Knoten: Klick auf den Titel schließt die Gruppe</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>… %1 more</source>
        <translation>… %1 weitere</translation>
    </message>
    <message>
        <source>1 box</source>
        <translation>1 Kasten</translation>
    </message>
    <message>
        <source>%1 boxes</source>
        <translation>%1 Kästen</translation>
    </message>
    <message>
        <source>Laid out by Graphviz dot in %1 ms</source>
        <translation>Von Graphviz dot in %1 ms angeordnet</translation>
    </message>
    <message>
        <source>Found %1</source>
        <translation>Gefunden: %1</translation>
    </message>
    <message>
        <source>No node matches “%1”</source>
        <translation>Kein Knoten passt zu „%1“</translation>
    </message>
</context>
<context>
    <name>ql::ui::LayerChoicesBar</name>
    <message>
        <source>Keep in fp32</source>
        <translation>In fp32 behalten</translation>
    </message>
    <message>
        <source>Bias correction</source>
        <translation>Bias-Korrektur</translation>
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
    <name>ql::ui::LayerInspector</name>
    <message>
        <source>No layer selected</source>
        <translation>Keine Schicht ausgewählt</translation>
    </message>
    <message>
        <source>Running both models on the evaluation batch</source>
        <translation>Beide Modelle laufen auf dem Evaluierungs-Batch</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>Tensor</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>Typ</translation>
    </message>
    <message>
        <source>Granularity</source>
        <translation>Granularität</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>Skalierung</translation>
    </message>
    <message>
        <source>Zero point</source>
        <translation>Nullpunkt</translation>
    </message>
    <message>
        <source>Channel</source>
        <translation>Kanal</translation>
    </message>
    <message>
        <source>Weight scale</source>
        <translation>Skalierung</translation>
    </message>
    <message>
        <source>Weight zero point</source>
        <translation>Nullpunkt</translation>
    </message>
    <message>
        <source>Bias (int32)</source>
        <translation>Bias (int32)</translation>
    </message>
    <message>
        <source>Weight min</source>
        <translation>Gewicht min</translation>
    </message>
    <message>
        <source>Weight max</source>
        <translation>Gewicht max</translation>
    </message>
    <message>
        <source>Weight SQNR (dB)</source>
        <translation>Gewichts-SQNR (dB)</translation>
    </message>
    <message>
        <source>Per output channel: the weight&apos;s scale and zero point, the int32 bias (at scale x_scale·w_scale), the float weight&apos;s range and the channel&apos;s weight SQNR</source>
        <translation>Je Ausgabekanal: Skalierung und Nullpunkt des Gewichts, der int32-Bias (mit Skalierung x_scale·w_scale), der Wertebereich des Float-Gewichts und das Gewichts-SQNR des Kanals</translation>
    </message>
    <message>
        <source>Float weight (BatchNormalization folded when the quantized model folded it) and dequantized int8 weight over the same bins</source>
        <translation>Float-Gewicht (mit gefalteter BatchNormalization, wenn das quantisierte Modell sie gefaltet hat) und dequantisiertes int8-Gewicht über dieselben Bins</translation>
    </message>
    <message>
        <source>The layer&apos;s float output and the quantized model&apos;s dequantized output, both models run end to end on the evaluation batch (cumulative)</source>
        <translation>Float-Ausgabe der Schicht und dequantisierte Ausgabe des quantisierten Modells; beide Modelle laufen komplett auf dem Evaluierungs-Batch (kumulativ)</translation>
    </message>
    <message>
        <source>Float vs quantized output values at a fixed random subsample of elements; points on y = x have no error</source>
        <translation>Float- vs. quantisierte Ausgabewerte an einer festen Zufallsauswahl von Elementen; Punkte auf y = x haben keinen Fehler</translation>
    </message>
    <message>
        <source>Per output channel: the float weight&apos;s min and max (bars) and the channel&apos;s weight SQNR (line, right axis)</source>
        <translation>Je Ausgabekanal: Minimum und Maximum des Float-Gewichts (Balken) und das Gewichts-SQNR des Kanals (Linie, rechte Achse)</translation>
    </message>
    <message>
        <source>SQNR of each evaluation sample at this layer (cumulative), sorted. A low 5th percentile with a high median means data-sensitive error (a few inputs suffer); all low means data-insensitive error.</source>
        <translation>SQNR jedes Evaluierungs-Samples an dieser Schicht (kumulativ), sortiert. Ein niedriges 5. Perzentil bei hohem Median bedeutet datenabhängigen Fehler (wenige Eingaben leiden); durchweg niedrige Werte bedeuten datenunabhängigen Fehler.</translation>
    </message>
    <message>
        <source>Logarithmic count</source>
        <translation>Logarithmische Anzahl</translation>
    </message>
    <message>
        <source>Show the histograms&apos; counts on a logarithmic axis, so that rare values (outliers, clipped tails) stay visible</source>
        <translation>Die Anzahlen der Histogramme auf einer logarithmischen Achse zeigen, damit seltene Werte (Ausreißer, abgeschnittene Ränder) sichtbar bleiben</translation>
    </message>
    <message>
        <source>Show the error (quantized − float) instead of the quantized value</source>
        <translation>Fehler (quantisiert − float) statt des quantisierten Werts zeigen</translation>
    </message>
    <message>
        <source>Quantization</source>
        <translation>Quantisierung</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>Gewichte</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>Aktivierungen</translation>
    </message>
    <message>
        <source>Scatter</source>
        <translation>Punktwolke</translation>
    </message>
    <message>
        <source>Channels</source>
        <translation>Kanäle</translation>
    </message>
    <message>
        <source>Per-sample SQNR</source>
        <translation>SQNR je Sample</translation>
    </message>
    <message>
        <source>Explain element</source>
        <translation>Element erklären</translation>
    </message>
    <message>
        <source>Select a layer in the chart or the table to see its quantization parameters, histograms and an explained output element.</source>
        <translation>Wählen Sie eine Schicht im Diagramm oder in der Tabelle, um ihre Quantisierungsparameter, Histogramme und ein erklärtes Ausgabeelement zu sehen.</translation>
    </message>
    <message>
        <source>%1  (%2)</source>
        <translation>%1  (%2)</translation>
    </message>
    <message>
        <source>The layer has no match in the quantized model.</source>
        <translation>Die Schicht hat keine Entsprechung im quantisierten Modell.</translation>
    </message>
    <message>
        <source>No models or evaluation batch to inspect.</source>
        <translation>Keine Modelle oder kein Evaluierungs-Batch zum Untersuchen.</translation>
    </message>
    <message>
        <source>No inspection: %1</source>
        <translation>Keine Untersuchung: %1</translation>
    </message>
    <message>
        <source>Quantized as %1 (%2); output %3; %4</source>
        <translation>Quantisiert als %1 (%2); Ausgabe %3; %4</translation>
    </message>
    <message>
        <source>; cumulative SQNR %1 dB</source>
        <translation>; kumulatives SQNR %1 dB</translation>
    </message>
    <message>
        <source>; weight SQNR %1 dB</source>
        <translation>; Gewichts-SQNR %1 dB</translation>
    </message>
    <message>
        <source>; BatchNormalization folded into the weight</source>
        <translation>; BatchNormalization ins Gewicht gefaltet</translation>
    </message>
    <message>
        <source>No explanation for this layer.</source>
        <translation>Keine Erklärung für diese Schicht.</translation>
    </message>
    <message>
        <source>%1 … %2</source>
        <translation>%1 … %2</translation>
    </message>
    <message>
        <source>per channel (axis %1, %2 channels)</source>
        <translation>pro Kanal (Achse %1, %2 Kanäle)</translation>
    </message>
    <message>
        <source>per tensor</source>
        <translation>pro Tensor</translation>
    </message>
    <message>
        <source>weight value (BN folded)</source>
        <translation>Gewichtswert (BN gefaltet)</translation>
    </message>
    <message>
        <source>weight value</source>
        <translation>Gewichtswert</translation>
    </message>
    <message>
        <source>This layer has no quantized weight.</source>
        <translation>Diese Schicht hat kein quantisiertes Gewicht.</translation>
    </message>
    <message>
        <source>output value</source>
        <translation>Ausgabewert</translation>
    </message>
    <message>
        <source>No per-channel weight figures for this layer.</source>
        <translation>Keine Gewichtswerte pro Kanal für diese Schicht.</translation>
    </message>
    <message numerus="yes">
        <source>%n sample(s)</source>
        <translation>
            <numerusform>%n Sample</numerusform>
            <numerusform>%n Samples</numerusform>
        </translation>
    </message>
    <message>
        <source>: min %1 dB, 5th percentile %2 dB, median %3 dB.</source>
        <translation>: Min. %1 dB, 5. Perzentil %2 dB, Median %3 dB.</translation>
    </message>
    <message>
        <source> The 5th percentile is far below the median: the error is data-sensitive (a few inputs suffer most).</source>
        <translation> Das 5. Perzentil liegt weit unter dem Median: Der Fehler ist datenabhängig (wenige Eingaben leiden am stärksten).</translation>
    </message>
    <message>
        <source>No per-sample SQNR figures for this layer.</source>
        <translation>Keine SQNR-Werte je Sample für diese Schicht.</translation>
    </message>
    <message>
        <source>float</source>
        <translation>float</translation>
    </message>
    <message>
        <source>dequantized int8</source>
        <translation>dequantisiertes int8</translation>
    </message>
    <message>
        <source>count (log)</source>
        <translation>Anzahl (log)</translation>
    </message>
    <message>
        <source>count</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>int8 range</source>
        <translation>int8-Bereich</translation>
    </message>
    <message>
        <source>elements</source>
        <translation>Elemente</translation>
    </message>
    <message>
        <source>float output</source>
        <translation>Float-Ausgabe</translation>
    </message>
    <message>
        <source>error: quantized − float</source>
        <translation>Fehler: quantisiert − float</translation>
    </message>
    <message>
        <source>%1 of %2 elements</source>
        <translation>%1 von %2 Elementen</translation>
    </message>
    <message>
        <source>quantized output (dequantized)</source>
        <translation>quantisierte Ausgabe (dequantisiert)</translation>
    </message>
    <message>
        <source>y = x</source>
        <translation>y = x</translation>
    </message>
    <message>
        <source>weight max</source>
        <translation>Gewicht max</translation>
    </message>
    <message>
        <source>weight min</source>
        <translation>Gewicht min</translation>
    </message>
    <message>
        <source>output channel</source>
        <translation>Ausgabekanal</translation>
    </message>
    <message>
        <source>float weight range</source>
        <translation>Bereich des Float-Gewichts</translation>
    </message>
    <message>
        <source>channel weight SQNR (dB)</source>
        <translation>Gewichts-SQNR des Kanals (dB)</translation>
    </message>
    <message>
        <source>weight SQNR</source>
        <translation>Gewichts-SQNR</translation>
    </message>
    <message>
        <source>samples, sorted</source>
        <translation>Samples, sortiert</translation>
    </message>
    <message>
        <source>sample rank (worst first)</source>
        <translation>Rang (schlechtestes Sample zuerst)</translation>
    </message>
    <message>
        <source>per-sample SQNR (dB)</source>
        <translation>SQNR je Sample (dB)</translation>
    </message>
    <message>
        <source>min %1 dB</source>
        <translation>Min. %1 dB</translation>
    </message>
    <message>
        <source>p5 %1 dB</source>
        <translation>p5 %1 dB</translation>
    </message>
    <message>
        <source>median %1 dB</source>
        <translation>Median %1 dB</translation>
    </message>
    <message numerus="yes">
        <source>%n sample(s) without error (+∞ dB) not drawn</source>
        <translation>
            <numerusform>%n Sample ohne Fehler (+∞ dB) nicht gezeichnet</numerusform>
            <numerusform>%n Samples ohne Fehler (+∞ dB) nicht gezeichnet</numerusform>
        </translation>
    </message>
    <message>
        <source> Float output range per sample: %1 to %2 (%3x).</source>
        <translation> Float-Ausgabebereich je Sample: %1 bis %2 (%3-fach).</translation>
    </message>
    <message>
        <source>float output range of the sample</source>
        <translation>Float-Ausgabebereich des Samples</translation>
    </message>
    <message>
        <source>range (max − min)</source>
        <translation>Bereich (max − min)</translation>
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
    <name>ql::ui::SampleViewBar</name>
    <message>
        <source>Back to All Samples</source>
        <translation>Zurück zu allen Samples</translation>
    </message>
    <message>
        <source>Analysing sample #%1 alone…</source>
        <translation>Analysiere nur Sample #%1…</translation>
    </message>
    <message>
        <source>Per-layer figures of sample #%1 alone</source>
        <translation>Werte je Schicht nur für Sample #%1</translation>
    </message>
    <message>
        <source>label %1</source>
        <translation>Label %1</translation>
    </message>
    <message>
        <source>float %1, int8 %2</source>
        <translation>float %1, int8 %2</translation>
    </message>
</context>
<context>
    <name>ql::ui::SqnrChart</name>
    <message>
        <source>Layers in execution order</source>
        <translation>Schichten in Ausführungsreihenfolge</translation>
    </message>
    <message>
        <source>SQNR (dB)</source>
        <translation>SQNR (dB)</translation>
    </message>
    <message>
        <source>Weight SQNR</source>
        <translation>Gewichts-SQNR</translation>
    </message>
    <message>
        <source>fp32 layer</source>
        <translation>fp32-Schicht</translation>
    </message>
    <message>
        <source>Cumulative SQNR</source>
        <translation>Kumulatives SQNR</translation>
    </message>
    <message>
        <source>Isolated SQNR</source>
        <translation>Isoliertes SQNR</translation>
    </message>
    <message>
        <source>Under threshold</source>
        <translation>Unter Schwellwert</translation>
    </message>
    <message>
        <source>Off scale</source>
        <translation>Außerhalb der Skala</translation>
    </message>
    <message>
        <source>Threshold (drag)</source>
        <translation>Schwellwert (ziehen)</translation>
    </message>
    <message>
        <source>&gt; %1</source>
        <translation>&gt; %1</translation>
    </message>
    <message>
        <source>&lt; %1</source>
        <translation>&lt; %1</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>%1 dB</source>
        <translation>%1 dB</translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>%1, runs %2</source>
        <translation>%1, läuft in %2</translation>
    </message>
    <message>
        <source>int8</source>
        <translation>int8</translation>
    </message>
    <message>
        <source>Weight SQNR: %1 dB</source>
        <translation>Gewichts-SQNR: %1 dB</translation>
    </message>
    <message>
        <source>Cumulative SQNR: %1 dB</source>
        <translation>Kumulatives SQNR: %1 dB</translation>
    </message>
    <message>
        <source>Isolated SQNR: %1 dB</source>
        <translation>Isoliertes SQNR: %1 dB</translation>
    </message>
    <message>
        <source>Per-sample p5: %1 dB</source>
        <translation>p5 je Sample: %1 dB</translation>
    </message>
    <message>
        <source>Kernel vs reference: %1 dB (mismatch)</source>
        <translation>Kernel vs. Referenz: %1 dB (Abweichung)</translation>
    </message>
    <message>
        <source>Kernel vs reference: %1 dB</source>
        <translation>Kernel vs. Referenz: %1 dB</translation>
    </message>
    <message>
        <source>Under the %1 dB threshold</source>
        <translation>Unter dem Schwellwert von %1 dB</translation>
    </message>
    <message>
        <source>Threshold</source>
        <translation>Schwellwert</translation>
    </message>
</context>
<context>
    <name>ql::ui::SqnrFillLegend</name>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>no figure</source>
        <translation>kein Wert</translation>
    </message>
    <message>
        <source>≥ %1 dB</source>
        <translation>≥ %1 dB</translation>
    </message>
</context>
<context>
    <name>ql::ui::WelcomePage</name>
    <message>
        <source>QuantLens</source>
        <translation>QuantLens</translation>
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
        <source>Find out why an int8-quantized network lost accuracy.
Analyse a float model and its quantized pair, open a model to look at it,
or try the Fashion-MNIST demo.</source>
        <translation>Finden Sie heraus, warum ein int8-quantisiertes Netz an Genauigkeit verloren hat.
Analysieren Sie ein Float-Modell und sein quantisiertes Gegenstück, öffnen Sie ein Modell zur Ansicht
oder probieren Sie die Fashion-MNIST-Demo aus.</translation>
    </message>
    <message>
        <source>New Analysis…</source>
        <translation>Neue Analyse…</translation>
    </message>
    <message>
        <source>You can also drop .onnx files or a .qlproj project here.</source>
        <translation>Sie können auch .onnx-Dateien oder ein .qlproj-Projekt hierher ziehen.</translation>
    </message>
</context>
<context>
    <name>ql::ui::WorstSampleStrip</name>
    <message>
        <source>The evaluation samples with the lowest output SQNR, and every sample whose top-1 class differs between the float and int8 models</source>
        <translation>Die Evaluierungs-Samples mit dem niedrigsten Ausgabe-SQNR und jedes Sample, dessen Top-1-Klasse sich zwischen Float- und int8-Modell unterscheidet</translation>
    </message>
    <message>
        <source>#%1 · n/a</source>
        <translation>#%1 · k. A.</translation>
    </message>
    <message>
        <source>#%1 · %2 dB</source>
        <translation>#%1 · %2 dB</translation>
    </message>
    <message>
        <source>label: %1</source>
        <translation>Label: %1</translation>
    </message>
    <message>
        <source>Label: %1</source>
        <translation>Label: %1</translation>
    </message>
    <message>
        <source>float: %1 → int8: %2</source>
        <extracomment>The predictions line of a tile; %1 float class, %2 int8 class: keep %1 before %2.</extracomment>
        <translation>float: %1 → int8: %2</translation>
    </message>
    <message>
        <source>Float top-1: %1</source>
        <translation>Float-Top-1: %1</translation>
    </message>
    <message>
        <source>Int8 top-1: %1 (changed)</source>
        <translation>int8-Top-1: %1 (geändert)</translation>
    </message>
    <message>
        <source>Int8 top-1: %1</source>
        <translation>int8-Top-1: %1</translation>
    </message>
    <message>
        <source>Output SQNR: n/a</source>
        <translation>Ausgabe-SQNR: k. A.</translation>
    </message>
    <message>
        <source>Output SQNR: %1 dB</source>
        <translation>Ausgabe-SQNR: %1 dB</translation>
    </message>
    <message>
        <source>Click or press Enter to view sample #%1</source>
        <translation>Klicken oder Enter drücken, um Sample #%1 zu zeigen</translation>
    </message>
    <message>
        <source>no picture</source>
        <translation>kein Bild</translation>
    </message>
    <message>
        <source>Worst samples</source>
        <translation>Schlechteste Samples</translation>
    </message>
    <message>
        <source>1 flip</source>
        <translation>1 Wechsel</translation>
    </message>
    <message>
        <source>%1 flips</source>
        <translation>%1 Wechsel</translation>
    </message>
    <message>
        <source>Worst samples (%1 lowest SQNR, %2)</source>
        <translation>Schlechteste Samples (%1 mit niedrigstem SQNR, %2)</translation>
    </message>
    <message>
        <source>%1 (class %2)</source>
        <translation>%1 (Klasse %2)</translation>
    </message>
</context>
</TS>
