"""What the votes say: progress, gold by each type's rule, agreement (Fleiss' kappa, Krippendorff's
alpha), Dawid-Skene, Bradley-Terry, the dashboard's figures and charts. Pure functions of the stored labels."""
