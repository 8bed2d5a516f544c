"""What the user asked for, checked once: each option as data (``option``, ``values``, the shared ``groups``), the
flags a command runs with (``flags``) and the model they name (``model``)."""
